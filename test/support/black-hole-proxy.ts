import { connect, createServer, type Socket } from 'node:net';
import { closedAtFileEnd } from './file-resources';

/** One TCP connection through the proxy, as the proxy saw it. */
interface ProxiedConnection {
  readonly id: number;
  /** Bytes the service sent into the black hole: held, not forwarded (a statement, a login, a keepalive does not count). */
  heldFromService: number;
  /** The service closed its end (at any time). */
  closedByService: boolean;
  /** The service closed its end while the network was black-holed. */
  closedByServiceInHole: boolean;
}

export interface BlackHoleProxy {
  /** The database URL, pointed at the proxy. */
  readonly url: string;
  /** Every connection the service opened through the proxy, in order. */
  readonly connections: readonly ProxiedConnection[];
  /**
   * From now on nothing is forwarded either way, as in a network partition: bytes are held, no
   * connection is reset or closed, and new connections are accepted but reach no server.
   */
  blackHole(): void;
  /**
   * Black-holes the network just after the service sends bytes containing `marker` (a statement's
   * text): that statement reaches the server, its answer does not. `then` runs at that moment.
   */
  blackHoleAfter(marker: string, then?: () => void): void;
  /** Forwards again: first what was held (as TCP would retransmit it), then the connections the service closed meanwhile are closed. */
  resume(): void;
  /** Settles when the service has closed `connection` (never, if it keeps it). */
  closedByService(connection: ProxiedConnection): Promise<void>;
  /** Settles once the server has closed every connection the service closed: whatever the server had of them is done. */
  serverCaughtUp(): Promise<void>;
  close(): Promise<void>;
}

interface Link {
  readonly seen: ProxiedConnection;
  readonly service: Socket;
  upstream?: Socket;
  /** Settles when the server side is closed (or was never opened). */
  readonly upstreamClosed: Promise<void>;
  markUpstreamClosed(): void;
  readonly serviceClosed: Promise<void>;
  toServer: Buffer[];
  toService: Buffer[];
  serverEnded: boolean;
}

/**
 * A TCP proxy in front of PostgreSQL that a test can black-hole and bring back, to show what the
 * service does when its database falls silent (no reset, no close): the failure a cloud network's
 * partition makes, which no server-side timeout can see. Closed at the end of the test file.
 */
export function startBlackHoleProxy(databaseUrl: string): Promise<BlackHoleProxy> {
  return closedAtFileEnd(listen(databaseUrl));
}

async function listen(databaseUrl: string): Promise<BlackHoleProxy> {
  const target = new URL(databaseUrl);
  const targetPort = Number(target.port || 5432);
  const links: Link[] = [];
  let silent = false;
  let silenceAfter: { marker: string; then?: () => void } | undefined;

  const openUpstream = (link: Link): void => {
    const upstream = connect(targetPort, target.hostname);
    link.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('data', (chunk: Buffer) => (silent ? link.toService.push(chunk) : link.service.write(chunk)));
    upstream.on('end', () => {
      link.serverEnded = true;
      if (!silent) link.service.end();
    });
    upstream.on('close', () => link.markUpstreamClosed());
  };

  const server = createServer((service) => {
    let markUpstreamClosed = (): void => undefined;
    const upstreamClosed = new Promise<void>((resolve) => (markUpstreamClosed = resolve));
    let markServiceClosed = (): void => undefined;
    const serviceClosed = new Promise<void>((resolve) => (markServiceClosed = resolve));
    const link: Link = {
      seen: { id: links.length, heldFromService: 0, closedByService: false, closedByServiceInHole: false },
      service,
      upstreamClosed,
      markUpstreamClosed,
      serviceClosed,
      toServer: [],
      toService: [],
      serverEnded: false,
    };
    links.push(link);
    service.on('error', () => undefined);
    service.on('data', (chunk: Buffer) => {
      if (silent) {
        link.seen.heldFromService += chunk.length;
        link.toServer.push(chunk);
      } else {
        link.upstream!.write(chunk);
        if (silenceAfter && chunk.includes(silenceAfter.marker)) {
          silent = true;
          const { then } = silenceAfter;
          silenceAfter = undefined;
          then?.();
        }
      }
    });
    // A FIN ('end') or a reset ('close' alone): either way the service let the connection go.
    const onServiceClose = (): void => {
      if (link.seen.closedByService) return;
      link.seen.closedByService = true;
      markServiceClosed();
      if (silent) link.seen.closedByServiceInHole = true;
      else link.upstream?.end();
    };
    service.on('end', onServiceClose);
    service.on('close', onServiceClose);
    if (silent) return;
    openUpstream(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    get connections() {
      return links.map((link) => link.seen);
    },
    blackHole() {
      silent = true;
    },
    blackHoleAfter(marker: string, then?: () => void) {
      silenceAfter = { marker, then };
    },
    resume() {
      silent = false;
      for (const link of links) {
        if (link.upstream === undefined) {
          // Accepted in the hole: its login reaches the server now, unless the service gave up on it.
          if (link.seen.closedByService) {
            link.markUpstreamClosed();
            continue;
          }
          openUpstream(link);
        }
        for (const chunk of link.toServer.splice(0)) link.upstream!.write(chunk);
        for (const chunk of link.toService.splice(0)) link.service.write(chunk);
        if (link.seen.closedByService) link.upstream!.end();
        if (link.serverEnded) link.service.end();
      }
    },
    closedByService(connection: ProxiedConnection) {
      return links[connection.id].serviceClosed;
    },
    async serverCaughtUp() {
      await Promise.all(links.filter((link) => link.seen.closedByService).map((link) => link.upstreamClosed));
    },
    async close() {
      for (const link of links) {
        link.service.destroy();
        link.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
