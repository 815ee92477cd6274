import { createServer } from 'node:net';

/**
 * A port the kernel just handed out on 127.0.0.1. A random pick in a fixed range can land on a
 * port another server or an outgoing connection holds (CI saw exactly that), the kernel's cannot.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
