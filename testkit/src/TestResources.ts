import { rmSync } from 'node:fs';
import { tempDir } from './process/tempDir.js';
import { startTcpProxy, type TcpProxy } from './startTcpProxy.js';

/**
 * What a spec file makes and must undo: proxies and temporary directories, all closed and deleted
 * by one `dispose()` (`afterAll(() => resources.dispose())`).
 */
export class TestResources {
  readonly #undo: (() => Promise<void> | void)[] = [];

  /** A {@link startTcpProxy} to `target`, closed by `dispose()`. */
  async proxy(target: string): Promise<TcpProxy> {
    const proxy = await startTcpProxy(target);
    this.#undo.push(() => proxy.close());
    return proxy;
  }

  /** A new temporary directory (its name starting `prefix`), deleted by `dispose()`. */
  tempDir(prefix: string): string {
    const dir = tempDir(prefix);
    this.#undo.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  /** Closes and deletes everything made so far. */
  async dispose(): Promise<void> {
    await Promise.all(this.#undo.splice(0).map((undo) => undo()));
  }
}
