import type { AnyOperation } from './operation.js';
import { capturePage, deletePage, listPages, readPage, writePage } from './pages.js';

/** Every operation Quire offers. REST routes and MCP tools are generated from this list. */
export const catalog: AnyOperation[] = [
  listPages,
  readPage,
  writePage,
  deletePage,
  capturePage,
] as unknown as AnyOperation[];
