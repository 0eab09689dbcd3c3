/** escape-html ships no types (and @types/escape-html is not installed): its one export. */
declare module 'escape-html' {
  export default function escapeHtml(text: string): string;
}
