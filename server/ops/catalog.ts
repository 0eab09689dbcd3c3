import { deleteAgent, listAgents, putAgent } from './agents.js';
import type { AnyOperation } from './operation.js';
import { askOp, similarPages } from './ask.js';
import { ackChanges, recentChanges } from './changes.js';
import { contextPack, guide } from './context.js';
import { gitClone } from './clone.js';
import { gitPush } from './push.js';
import { changeEvents } from './events.js';
import { exportVault } from './export.js';
import { appendToPage, movePageOp, pageOutline, patchPage, readPages } from './edits.js';
import { deleteFile, listFiles, writeFile } from './files.js';
import { readFile } from './file-read.js';
import { health } from './health.js';
import { diffPage, listDeleted, pageHistory, restorePage } from './history.js';
import { backlinks, graph, lintOp, listTags, rebuildIndex, search, statsOp } from './knowledge.js';
import { capturePage, deletePage, listPages, readPage, writePage } from './pages.js';
import { approveProposal, createProposal, getProposal, listProposals, rejectProposal } from './proposals.js';
import { revertChanges } from './revert.js';
import { queryPages } from './query.js';
import { listTasks, setTaskStatusOp } from './tasks.js';
import { whoami } from './whoami.js';

/** Every operation Quire offers. REST routes and MCP tools are generated from this list. */
export const catalog: AnyOperation[] = [
  listPages,
  readPage,
  writePage,
  deletePage,
  capturePage,
  listFiles,
  readFile,
  writeFile,
  deleteFile,
  readPages,
  pageOutline,
  appendToPage,
  patchPage,
  movePageOp,
  search,
  queryPages,
  similarPages,
  askOp,
  listTags,
  listTasks,
  setTaskStatusOp,
  graph,
  backlinks,
  lintOp,
  statsOp,
  health,
  rebuildIndex,
  recentChanges,
  ackChanges,
  revertChanges,
  changeEvents,
  pageHistory,
  diffPage,
  restorePage,
  listDeleted,
  exportVault,
  gitClone,
  gitPush,
  listAgents,
  putAgent,
  deleteAgent,
  createProposal,
  listProposals,
  getProposal,
  approveProposal,
  rejectProposal,
  whoami,
  guide,
  contextPack,
] as unknown as AnyOperation[];
