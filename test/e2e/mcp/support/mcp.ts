import type { AddressInfo } from 'node:net';
import type { TestApp } from '../../../support/test-app';

/** The service listening on a loopback port, as MCP's HTTP clients reach it: its /mcp URL. */
export async function listenForMcp(t: TestApp): Promise<URL> {
  await t.app.listen(0, '127.0.0.1');
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  return new URL(`http://127.0.0.1:${port}/mcp`);
}
