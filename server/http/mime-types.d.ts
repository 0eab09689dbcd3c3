/** mime-types (express's own) ships no types and @types/mime-types is not installed: the calls used. */
declare module 'mime-types' {
  export function lookup(path: string): string | false;
  export function charset(type: string): string | false;
  export function contentType(type: string): string | false;
}
