/** Where kubernetes-models declares a kind the manifests use: its module and class name. */
export interface KubernetesModel {
  /** The module of the class and of its `I<Kind>` interface. */
  readonly module: string;
  /** The class name; the interface is `I` + this. */
  readonly name: string;
}

/**
 * The kinds the deploy manifests may hold, by `apiVersion/kind`, each with its model in
 * kubernetes-models (a schema validator and a TypeScript interface, both generated from
 * Kubernetes' OpenAPI document). A kind missing here is refused by the checks, not waved through.
 */
export const KUBERNETES_MODELS: Readonly<Record<string, KubernetesModel>> = {
  'v1/Service': { module: 'kubernetes-models/v1/Service', name: 'Service' },
  'v1/Secret': { module: 'kubernetes-models/v1/Secret', name: 'Secret' },
  'apps/v1/StatefulSet': { module: 'kubernetes-models/apps/v1/StatefulSet', name: 'StatefulSet' },
};

/** The model of a manifest's kind; throws naming a kind the checks do not know. */
export function kubernetesModelOf(manifest: {
  readonly apiVersion: string;
  readonly kind: string;
}): KubernetesModel {
  const model = KUBERNETES_MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (model === undefined) {
    throw new Error(
      `no schema for ${manifest.apiVersion} ${manifest.kind}: add it to KUBERNETES_MODELS`,
    );
  }
  return model;
}
