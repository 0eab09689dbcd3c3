import type { AnyOperation } from '../../../server/ops/operation.js';

/** The tool table of docs/mcp.md, as the catalog says it must read. */
export function toolTable(catalog: readonly AnyOperation[]): string {
  const rows = catalog
    .filter((op) => op.mcp)
    .map((op) => {
      const a = op.mcp!.annotations;
      const hints = [a.readOnlyHint ? 'read-only' : '', a.destructiveHint ? 'destructive' : '', a.idempotentHint ? 'idempotent' : '']
        .filter(Boolean)
        .join(', ');
      const rest = op.rest ? `\`${op.rest.method.toUpperCase()} ${op.rest.path}\`` : '—';
      return `| \`${op.name}\` | \`mcp:${op.scope}\` | ${op.mcp!.title} | ${rest} | ${hints || '—'} |`;
    });
  return ['| Tool | Scope | Title | REST twin | Hints |', '|---|---|---|---|---|', ...rows].join('\n');
}
