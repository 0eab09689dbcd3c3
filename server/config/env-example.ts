import { variableDocs } from './schema.js';

const WIDTH = 100;

const HEADER = `# Quire configuration, generated from server/config/schema.ts by \`npm run env:example\`.
# Every variable is optional; flags to \`quire serve\` win over these. Start-up validates all of
# them and lists every problem before exiting. A commented line shows the default, or an example
# where the default is derived from other variables or off.`;

function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length > 1 && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** The text of `.env.example`: a comment per variable, then the variable commented out. */
export function renderEnvExample(): string {
  const blocks = variableDocs().map(([name, doc]) => [...comment(doc.doc), `# ${name}=${doc.default ?? doc.example ?? ''}`].join('\n'));
  return `${[HEADER, ...blocks].join('\n\n')}\n`;
}
