import { html, type SafeHtml } from '../web/html.js';

function lineKind(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return '';
}

/** Each line of a unified diff in its own colour; the text itself stays escaped. */
export function diffView(diff: string, empty = 'No difference: the page already has this content.'): SafeHtml {
  if (!diff) return html`<p class="empty">${empty}</p>`;
  const lines = diff.replace(/\n$/, '').split('\n');
  return html`<div class="diff" role="region" aria-label="Changes">${lines.map((line) => html`<span class="${lineKind(line)}">${line || ' '}</span>`)}</div>`;
}

export interface FieldChange {
  field: string;
  change: 'added' | 'removed' | 'changed';
  from?: unknown;
  to?: unknown;
}

/** A front-matter value as YAML readers expect to see it: strings bare, the rest as JSON. */
function value(v: unknown): SafeHtml | string {
  if (v === undefined) return html`<span class="muted">—</span>`;
  return html`<code>${typeof v === 'string' ? v : JSON.stringify(v)}</code>`;
}

const CHANGE_BADGE: Record<FieldChange['change'], string> = { added: 'ok', removed: 'bad', changed: 'warn' };

/** Front-matter changes field by field, so a tag or status change is not lost in the text diff. */
export function fieldChanges(changes: FieldChange[]): SafeHtml | '' {
  if (!changes.length) return '';
  return html`<div class="table-wrap"><table class="fields"><caption>Front matter</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Change</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
<tbody>${changes.map(
    (c) =>
      html`<tr><td class="mono">${c.field}</td><td><span class="badge ${CHANGE_BADGE[c.change]}">${c.change}</span></td><td>${value(c.change === 'added' ? undefined : c.from)}</td><td>${value(c.change === 'removed' ? undefined : c.to)}</td></tr>`,
  )}</tbody></table></div>`;
}
