import { kubernetesModelOf } from './kubernetesModels.js';
import type { Manifest } from './readManifests.js';

type ValidatingModel = new (data: unknown) => { validate(): void };

/**
 * What the Kubernetes OpenAPI schema of a manifest's kind finds wrong with it (a missing
 * required field, a wrong type or format), through kubernetes-models' generated validators, or
 * `undefined` when it is valid. The schemas let unknown fields pass: `unknownFieldErrors` finds
 * those.
 */
export async function schemaErrors(manifest: Manifest): Promise<string | undefined> {
  const { module, name } = kubernetesModelOf(manifest);
  const exports = (await import(module)) as Record<string, ValidatingModel | undefined>;
  const Model = exports[name];
  if (Model === undefined) throw new Error(`${module} exports no ${name}`);
  try {
    new Model(manifest).validate();
    return undefined;
  } catch (error) {
    return `${manifest.kind} ${manifest.metadata.name}: ${(error as Error).message}`;
  }
}
