import { loadConfig, type ConfigFlags } from '../../server/config.js';
import { lockDataDir } from './data-lock.js';
import { startServer } from '../../server/server.js';
import { firstRun } from '../first-run.js';

export async function serveCommand(flags: ConfigFlags): Promise<void> {
  // Express and the libraries that look assume development unless told otherwise, and
  // `quire serve` (npm start and npx quire serve alike) is the production server. Error
  // bodies never depend on it, so tests that start the server in-process see the same.
  process.env.NODE_ENV ??= 'production';
  const config = loadConfig(process.env, flags);
  const unlock = lockDataDir(config.dataDir);
  const running = await startServer(config);
  const welcome = await firstRun(running.services);
  console.log(`quire serving ${config.dataDir} at ${running.services.config.baseUrl}`);
  if (welcome) console.log(welcome);
  const stop = async () => {
    await running.close();
    unlock();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
