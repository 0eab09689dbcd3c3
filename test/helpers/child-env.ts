/**
 * The environment of a child process a test starts (git, `quire serve`): ours without QUIRE_*
 * (the test chooses the server's settings), without GIT_* and PORT, and git never prompts.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^(QUIRE_|GIT_)/.test(name) && name !== 'PORT') env[name] = value;
  return { ...env, GIT_TERMINAL_PROMPT: '0', ...extra };
}
