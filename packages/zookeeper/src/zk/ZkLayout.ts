/**
 * Where things live under a fleet's root:
 *
 * - `{root}/ids/{machineId}`: persistent; the allocation (owner key, owner instance, time mark).
 * - `{root}/live/{machineId}`: ephemeral; present while the owner's session lives.
 * - `{root}/keys/{key}`: persistent; which id a key holds (key URI-encoded).
 * - `{root}/clock`: persistent; written at start to read ZooKeeper's clock.
 */
export class ZkLayout {
  readonly root: string;
  readonly ids: string;
  readonly live: string;
  readonly keys: string;
  readonly clock: string;

  constructor(root: string) {
    this.root = root;
    this.ids = `${root}/ids`;
    this.live = `${root}/live`;
    this.keys = `${root}/keys`;
    this.clock = `${root}/clock`;
  }

  idPath(machineId: number): string {
    return `${this.ids}/${machineId}`;
  }

  livePath(machineId: number): string {
    return `${this.live}/${machineId}`;
  }

  keyPath(key: string): string {
    return `${this.keys}/${encodeURIComponent(key)}`;
  }
}
