/** What tests need of the network. */
import { createServer } from "node:net";

/** A free TCP port on 127.0.0.1, for a server that takes its port from the environment and cannot report one it picked. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
