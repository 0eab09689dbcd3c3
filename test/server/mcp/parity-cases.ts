/**
 * One good and one bad input per operation that has both a REST and an MCP binding. The
 * parity test fails for an operation missing here: a new operation adds its case.
 * Cases run in this order on two identically seeded vaults, so writes see the same state.
 */
export interface CaseContext {
  /** The current hash of a page in this surface's vault. */
  hashOf: (path: string) => Promise<string>;
  /** Runs another operation on the same surface, as the same user. */
  run: (name: string, input: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

export interface ParityCase {
  good: (ctx: CaseContext) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** null for an operation that takes no input, so nothing can be invalid. */
  bad: Record<string, unknown> | null;
}

export const SEED: Record<string, string> = {
  'notes/a.md': '---\ntags: [alpha]\n---\n# A\n\nSee [[b]] and the idea. #tag1\n\n## Section\ntext under section\n',
  'notes/b.md': '# B\n\nBack to [[a]].\n\n- [ ] Follow up 📅 2026-12-01\n',
  'notes/c.md': '# C\n\nAn orphan.\n',
};

export const PARITY_CASES: Record<string, ParityCase> = {
  list_pages: { good: () => ({ prefix: 'notes' }), bad: { prefix: '../notes' } },
  read_page: { good: () => ({ path: 'notes/a.md' }), bad: { path: 'notes/.hidden.md' } },
  read_pages: { good: () => ({ paths: ['notes/a.md', 'notes/b'] }), bad: { paths: [] } },
  page_outline: { good: () => ({ path: 'notes/a.md' }), bad: { path: 'notes/.hidden.md' } },
  list_tags: { good: () => ({}), bad: { limit: 0 } },
  list_tasks: { good: () => ({ status: 'all', due_before: '2027-01-01' }), bad: { due_before: 'tomorrow' } },
  set_task_status: {
    good: async ({ hashOf }) => ({ path: 'notes/b.md', line: 5, status: 'done', base_hash: await hashOf('notes/b.md') }),
    bad: { path: 'notes/b.md', line: 0, status: 'done', base_hash: '0'.repeat(40) },
  },
  search: { good: () => ({ q: 'idea' }), bad: { q: '' } },
  query_pages: {
    good: () => ({ from: 'notes', where: { in: ['alpha', { var: 'tags' }] }, sort: [{ field: 'title', dir: 'desc' }], fields: ['links'] }),
    bad: { where: { regex: ['a', 'b'] } },
  },
  similar_pages: { good: () => ({ path: 'notes/a.md' }), bad: { limit: 0 } },
  ask: { good: () => ({ question: 'What does A say about the idea?' }), bad: { question: '' } },
  graph: { good: () => ({ path: 'notes/a.md', depth: 1 }), bad: { depth: 9 } },
  backlinks: { good: () => ({ path: 'notes/a.md' }), bad: { path: 'notes/.hidden.md' } },
  lint: { good: () => ({}), bad: null },
  vault_stats: { good: () => ({}), bad: null },
  vault_health: { good: () => ({}), bad: null },
  write_page: { good: () => ({ path: 'notes/new.md', content: '# New\n\nLinks to [[a]].\n' }), bad: { path: 'notes/x.md', content: 42 } },
  append_to_page: { good: () => ({ path: 'notes/b.md', text: 'More text.' }), bad: { path: 'notes/b.md', text: '' } },
  patch_page: {
    good: async ({ hashOf }) => ({
      path: 'notes/a.md',
      heading: 'Section',
      replace: 'patched text\n',
      base_hash: await hashOf('notes/a.md'),
    }),
    bad: { path: 'notes/a.md', replace: 'x' },
  },
  move_page: { good: () => ({ from: 'notes/new.md', to: 'notes/renamed.md' }), bad: { from: 'notes/new.md' } },
  capture: { good: () => ({ title: 'Idea', source: 'parity test', content: 'An idea worth keeping.' }), bad: { title: '', content: 'x' } },
  list_files: { good: () => ({ prefix: 'notes' }), bad: { prefix: '../notes' } },
  // write_file and read_file carry raw bytes on REST: only the MCP side runs them (output schemas).
  write_file: {
    good: () => ({ path: 'img/dot.png', content_base64: Buffer.from('89504e470d0a1a0a', 'hex').toString('base64') }),
    bad: { path: 'img/.hidden.png', content_base64: 'AA==' },
  },
  read_file: { good: () => ({ path: 'notes/a.md' }), bad: { path: '.git/config' } },
  delete_file: { good: () => ({ path: 'notes/renamed.md' }), bad: { path: 'notes/renamed.md', base_hash: 'not-a-hash' } },
  delete_page: { good: () => ({ path: 'notes/c.md' }), bad: { path: 'notes/c.md', base_hash: 'not-a-hash' } },
  rebuild_index: { good: () => ({}), bad: null },
  recent_changes: { good: () => ({ limit: 5 }), bad: { limit: 0 } },
  // A plan on both surfaces: MCP plans unless confirm: true, REST when dry_run: true.
  revert_changes: {
    good: async ({ run }) => ({ commit: (await run('recent_changes', {})).head, dry_run: true }),
    bad: { commit: 'not-a-commit' },
  },
  page_history: { good: () => ({ path: 'notes/a.md' }), bad: { limit: 0 } },
  diff_page: {
    good: async ({ run }) => {
      const { entries } = (await run('page_history', { path: 'notes/a.md' })) as { entries: { commit: string }[] };
      return { path: 'notes/a.md', from: entries[entries.length - 1].commit };
    },
    bad: { path: 'notes/a.md' },
  },
  list_deleted: { good: () => ({ prefix: 'notes' }), bad: { limit: 0 } },
  restore_page: {
    good: async ({ run }) => {
      const { pages } = (await run('list_deleted', {})) as { pages: { path: string; last_hash: string }[] };
      return { path: 'notes/c.md', at: pages.find((p) => p.path === 'notes/c.md')!.last_hash, base_hash: null };
    },
    bad: { path: 'notes/c.md' },
  },
  whoami: { good: () => ({}), bad: null },
  guide: { good: () => ({}), bad: null },
  context_pack: { good: () => ({ topic: 'idea', max_tokens: 1000 }), bad: { topic: '' } },
  create_proposal: {
    good: () => ({ title: 'Tidy B', rationale: 'Shorter', changes: [{ path: 'notes/b.md', content: '# B\n\nTidied.\n' }] }),
    bad: { title: 'Tidy B', changes: [] },
  },
  list_proposals: { good: () => ({ status: 'pending' }), bad: { status: 'maybe' } },
  get_proposal: {
    good: async ({ run }) => ({ id: ((await run('list_proposals', {})).proposals as { id: string }[])[0].id }),
    bad: { id: 'NOT VALID' },
  },
};
