import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';

/** One Kubernetes object of a manifest file, as parsed (not yet checked against a schema). */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly [field: string]: unknown;
}

/**
 * The objects of a multi-document YAML manifest, in file order; documents that hold only
 * comments are skipped. A YAML syntax error, or a document that is not an object with
 * `apiVersion`, `kind` and `metadata.name`, throws naming the file.
 */
export async function readManifests(path: string): Promise<Manifest[]> {
  const documents = parseAllDocuments(await readFile(path, 'utf8'));
  if (!Array.isArray(documents)) throw new Error(`${path}: not a YAML stream`);
  const manifests: Manifest[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) {
      throw new Error(`${path}: ${document.errors.map((error) => error.message).join('; ')}`);
    }
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    const object = value as Partial<Manifest>;
    if (
      typeof object.apiVersion !== 'string' ||
      typeof object.kind !== 'string' ||
      typeof object.metadata?.name !== 'string'
    ) {
      throw new Error(`${path}: a document without apiVersion, kind and metadata.name`);
    }
    manifests.push(object as Manifest);
  }
  return manifests;
}
