import escapeHtml from 'escape-html';

/** Markup that is already safe: the only thing `html` inserts without escaping. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Tagged template for server-rendered pages: every interpolated value is escaped (by the
 * maintained escape-html) unless it is itself `html` output, so a client name, a page path
 * or a username can never become markup. No page builds HTML any other way.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}
