import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PackedPackage } from './packPublicPackages.js';

/** A registry on 127.0.0.1 serving packed tarballs as their one published version. */
export interface TarballRegistry {
  /** e.g. `http://127.0.0.1:41234/` */
  readonly url: string;
  close(): Promise<void>;
}

/** A packument (what a registry answers for a package name) of one version, its tarball at `url`. */
function packumentOf(packed: PackedPackage, url: string, bytes: Buffer): Record<string, unknown> {
  const { manifest } = packed;
  return {
    name: manifest.name,
    'dist-tags': { latest: manifest.version },
    versions: {
      [manifest.version]: {
        ...manifest,
        dist: {
          tarball: url,
          shasum: createHash('sha1').update(bytes).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        },
      },
    },
  };
}

/**
 * Starts a registry that serves `packages` as a registry serves published packages: the
 * packument of each name (`GET /@vesta%2fcore`, or unescaped), its tarball, and 404 for any
 * other name. Set as the `@vesta` scope's registry, it lets a package manager install the
 * tarballs by name and version range, as a user would after `npm publish`, instead of from
 * paths (which yarn cannot match to the ranges the tarballs' dependencies declare).
 */
export async function startTarballRegistry(
  packages: ReadonlyMap<string, PackedPackage>,
): Promise<TarballRegistry> {
  const bytes = new Map<string, Buffer>();
  for (const [name, packed] of packages) bytes.set(name, await readFile(packed.tarball));
  const server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/').slice(1);
    const tarball = /^-\/(.+)\.tgz$/.exec(path);
    const name = tarball === null ? path : tarball[1];
    const packed = name === undefined ? undefined : packages.get(name);
    const body = name === undefined ? undefined : bytes.get(name);
    if (packed === undefined || body === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"Not found"}');
    } else if (tarball !== null) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(body);
    } else {
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}/-/${packed.manifest.name}.tgz`;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(packumentOf(packed, url, body)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
