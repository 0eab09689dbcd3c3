import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log/logger.js';
import { closeServices, createServices, type Services } from './services.js';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  server: Server;
  close: () => Promise<void>;
}

/** Starts listening; with port 0 the OS picks one and `url` reports it. Logs go to stdout unless `log` is given. */
export async function startServer(configured: Config, log: Logger = createLogger(configured.logLevel)): Promise<RunningServer> {
  const server = createServer();
  // Longer than clients' idle timeouts, so a client never reuses a socket the server is closing.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(configured.port, configured.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = configured.host.includes(':') ? `[${configured.host}]` : configured.host;
  const config = configured.port === 0 ? withActualPort(configured, `${host}:0`, `${host}:${port}`) : configured;
  const services = createServices(config, log);
  // The CLI prints sign-in links to this address (`quire user link`), whatever port it took.
  await services.store.server.recordAccountUrl(config.accountUrl);
  server.on('request', createApp(services));
  return {
    url: `http://${host}:${port}`,
    port,
    services,
    server,
    close: async () => {
      // Live change streams end and long-polls answer before the sockets are cut.
      await services.live.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeServices(services);
    },
  };
}

/** Port 0 (tests) is only known after listen: URLs derived from it get the real port. */
function withActualPort(config: Config, placeholder: string, actual: string): Config {
  const fix = (url: string) => url.replace(`//${placeholder}`, `//${actual}`);
  return { ...config, baseUrl: fix(config.baseUrl), authUrl: fix(config.authUrl), accountUrl: fix(config.accountUrl) };
}
