import type { Router } from 'express';
import { QuireError } from '../../vault-store/errors.js';
import { html, type SafeHtml } from '../web/html.js';
import { callOp, type AccountArea, type Visit } from './area.js';
import { postForm, redirectWith } from './frame.js';
import { historyPath, type RestoreResult } from './history-model.js';

/** The page's current version, or undefined when it is deleted: restores go over the version seen. */
export async function currentHash(area: AccountArea, visit: Visit, path: string): Promise<string | undefined> {
  try {
    return (await callOp<{ hash: string }>(area, visit, 'read_page', { path })).hash;
  } catch (err) {
    if (err instanceof QuireError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}

/**
 * One button that writes a version back. It carries the current version's hash, so a page
 * changed in the meantime answers a clear error instead of being overwritten.
 */
export function restoreButton(
  area: AccountArea,
  visit: Visit,
  form: { path: string; at: string; base?: string; label: string; back: 'history' | 'deleted'; text?: string },
): SafeHtml {
  return postForm(
    area,
    visit,
    '/history/restore',
    html`<input type="hidden" name="path" value="${form.path}"><input type="hidden" name="at" value="${form.at}">${form.base ? html`<input type="hidden" name="base_hash" value="${form.base}">` : ''}<input type="hidden" name="back" value="${form.back}"><button type="submit" class="secondary" aria-label="${form.label}">${form.text ?? 'Restore'}</button>`,
    'inline',
  );
}

function restoredText(path: string, result: RestoreResult): string {
  if (result.proposal_id) return `A proposal to restore ${path} is waiting for approval.`;
  if (!result.restored) return `${path} already has that version: nothing changed.`;
  if (result.created) return `${path} is back, as it was before it was deleted (commit ${result.commit!.slice(0, 7)}).`;
  return `${path} restored to the version of commit ${result.version_commit.slice(0, 7)}, as a new change (commit ${result.commit!.slice(0, 7)}).`;
}

export function restoreRoute(router: Router, area: AccountArea): void {
  router.post('/history/restore', async (req, res) => {
    const visit = res.locals.visit!;
    const path = String(req.body.path ?? '');
    const base = String(req.body.base_hash ?? '');
    const back = req.body.back === 'deleted' ? '/deleted' : historyPath(path);
    try {
      const result = await callOp<RestoreResult>(area, visit, 'restore_page', {
        path,
        at: String(req.body.at ?? ''),
        ...(base ? { base_hash: base } : {}),
      });
      redirectWith(res, area, visit, historyPath(result.path), {
        kind: 'notice',
        text: restoredText(result.path, result),
      });
    } catch (err) {
      if (!(err instanceof QuireError) || !['CONFLICT', 'NOT_FOUND', 'INVALID_REQUEST'].includes(err.code)) throw err;
      const text =
        err.code === 'CONFLICT'
          ? `${path} changed after you opened this page, so nothing was restored. Look at its newest version and try again.`
          : `Nothing was restored: ${err.message}`;
      redirectWith(res, area, visit, back, { kind: 'error', text });
    }
  });
}
