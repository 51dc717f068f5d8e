/**
 * Where things live under a fleet's root:
 *
 * - `{root}/ids/{machineId}`: persistent; the allocation (owner key, owner instance, time mark).
 * - `{root}/live/{machineId}`: ephemeral; present while the owner's session lives.
 * - `{root}/keys/{key}`: persistent; which id a key holds (key URI-encoded).
 * - `{root}/clock`: persistent; written at start to read ZooKeeper's clock.
 * - `{root}/era`: persistent; the allocation era (`{ era, open }`), created with the tree.
 * - `{root}/era/{era}`: persistent; the era's token, which every claim and every refresh checks,
 *   so that nothing written under a lost tree's era lands in a new tree.
 * - `{root}/history/e-{counter}`: persistent sequential; the lease journal, one JSON entry each.
 */
export class ZkLayout {
  readonly root: string;
  readonly ids: string;
  readonly live: string;
  readonly keys: string;
  readonly clock: string;
  readonly era: string;
  readonly history: string;

  constructor(root: string) {
    this.root = root;
    this.ids = `${root}/ids`;
    this.live = `${root}/live`;
    this.keys = `${root}/keys`;
    this.clock = `${root}/clock`;
    this.era = `${root}/era`;
    this.history = `${root}/history`;
  }

  idPath(machineId: number): string {
    return `${this.ids}/${machineId}`;
  }

  livePath(machineId: number): string {
    return `${this.live}/${machineId}`;
  }

  eraToken(era: string): string {
    return `${this.era}/${era}`;
  }

  keyPath(key: string): string {
    return `${this.keys}/${encodeURIComponent(key)}`;
  }
}
