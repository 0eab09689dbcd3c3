import { html, type SafeHtml } from '../web/html.js';
import type { AccountArea } from './area.js';
import type { FieldChange } from './diff-view.js';

/*
 * The shapes of the history operations' answers (page_history, diff_page, restore_page,
 * list_deleted in server/ops/history.ts), as these pages read them.
 */

export type ChangeKind = 'created' | 'modified' | 'renamed' | 'deleted';

export interface HistoryChange {
  path: string;
  kind: ChangeKind;
  /** The page's version after the commit; null when deleted. */
  hash: string | null;
  from?: string;
  to?: string;
}

export interface HistoryEntry {
  commit: string;
  at: string;
  actor: string;
  message: string;
  author: string;
  agent?: string;
  key?: string;
  app?: string;
  device?: string;
  changes: HistoryChange[];
}

export interface HistoryPage {
  entries: HistoryEntry[];
  next_cursor: string | null;
}

export interface PageDiff {
  path: string;
  from: { ref: string; commit: string | null; hash: string | null; path: string | null };
  to: { ref: string; commit: string | null; hash: string | null; path: string | null };
  identical: boolean;
  unified: string;
  frontmatter: FieldChange[];
}

export interface RestoreResult {
  path: string;
  restored: boolean;
  hash: string;
  version_commit: string;
  commit: string | null;
  created: boolean;
  proposal_id?: string;
}

export interface DeletedPages {
  pages: { path: string; commit: string; deleted_at: string; actor: string; last_hash: string }[];
  next_cursor: string | null;
}

/** A commit's `Quire-Actor` in words: "key:laptop" → "key laptop", the account area → "you". */
export function actorText(actor: string): string {
  const [via, ...rest] = actor.split(':');
  if (!rest.length) return actor;
  return via === 'account' ? 'you' : `${via} ${rest.join(':')}`;
}

/** Who made a commit, in words: the agent first, then the key, app or device it came through. */
export function who(entry: Pick<HistoryEntry, 'actor' | 'author' | 'agent' | 'key' | 'app' | 'device'>): SafeHtml {
  const via = entry.key ? `key ${entry.key}` : entry.app ? `app ${entry.app}` : entry.device ? `device ${entry.device}` : undefined;
  if (entry.agent)
    return html`<span class="badge">agent ${entry.agent}</span>${via ? html` <span class="muted small">via ${via}</span>` : ''}`;
  if (via) return html`${via}`;
  if (entry.actor.startsWith('account:')) return html`you <span class="muted small">(account area)</span>`;
  if (entry.actor === 'external' || !entry.actor.includes(':'))
    return html`${entry.author} <span class="muted small">(outside Quire)</span>`;
  return html`${actorText(entry.actor)}`;
}

const KIND_BADGE: Record<ChangeKind, string> = { created: 'ok', modified: '', renamed: 'warn', deleted: 'bad' };

export function kindBadge(change: HistoryChange): SafeHtml {
  const detail =
    change.kind === 'renamed' && change.from ? html` <span class="muted small">from <span class="mono">${change.from}</span></span>` : '';
  return html`<span class="badge ${KIND_BADGE[change.kind]}">${change.kind}</span>${detail}`;
}

export const short = (id: string | null | undefined): string => (id ? id.slice(0, 7) : '—');

/** A page's history within the area (after `area.path`); the query string carries any path safely. */
export function historyPath(path: string, extra: Record<string, string> = {}): string {
  return `/history?${new URLSearchParams({ path, ...extra }).toString()}`;
}

/** History's two lists, one tab each: the top bar has room for one "History" entry. */
export function historyTabs(area: AccountArea, current: 'activity' | 'deleted'): SafeHtml {
  const tab = (href: string, label: string, on: boolean) =>
    html`<a href="${area.path}${href}"${on ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="History">${tab('/history', 'Recent activity', current === 'activity')}${tab('/deleted', 'Recently deleted', current === 'deleted')}</nav>`;
}
