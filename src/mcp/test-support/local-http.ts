/** An HTTP server of a test's, on 127.0.0.1 and a free port, with a close that cuts what is still open. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listenLocally(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
