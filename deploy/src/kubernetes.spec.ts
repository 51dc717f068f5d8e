import { join, resolve } from 'node:path';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { beforeAll, describe, expect, it } from 'vitest';
import { readManifests, type Manifest } from './readManifests.js';
import { schemaErrors } from './schemaErrors.js';
import { unknownFieldErrors } from './unknownFieldErrors.js';

const KUBERNETES = resolve(import.meta.dirname, '../kubernetes');
const FILES = ['statefulset.yaml', 'statefulset-coordinator.yaml'] as const;
/** The machine ids of the REST and central servers (genMethod 1 and 2). */
const SERVER_IDS = { min: 924, max: 1023 };

const manifests = new Map<string, Manifest[]>();
/** The unknown fields of every file's manifests, from one tsc run (a few seconds). */
let unknownFields: string[];

beforeAll(async () => {
  for (const file of FILES) manifests.set(file, await readManifests(join(KUBERNETES, file)));
  unknownFields = await unknownFieldErrors(FILES.flatMap((file) => docs(file)));
});

function docs(file: string): Manifest[] {
  const found = manifests.get(file);
  if (found === undefined) throw new Error(`${file} not read`);
  return found;
}

function statefulSet(file: string): IStatefulSet {
  const sets = docs(file).filter((doc) => doc.kind === 'StatefulSet');
  expect(sets, file).toHaveLength(1);
  return sets[0] as unknown as IStatefulSet;
}

function services(file: string): IService[] {
  return docs(file).filter((doc) => doc.kind === 'Service') as unknown as IService[];
}

function vestaContainer(set: IStatefulSet): IContainer {
  const containers = set.spec?.template.spec?.containers ?? [];
  expect(containers).toHaveLength(1);
  return containers[0] as IContainer;
}

function envOf(container: IContainer): Map<string, IEnvVar> {
  return new Map((container.env ?? []).map((variable) => [variable.name, variable]));
}

describe.each(FILES)('deploy/kubernetes/%s', (file) => {
  it('holds only kinds the checks know, each valid against its Kubernetes schema', async () => {
    expect(docs(file).map((doc) => doc.kind)).toContain('StatefulSet');
    const errors = await Promise.all(docs(file).map((doc) => schemaErrors(doc)));
    expect(errors.filter((error) => error !== undefined)).toEqual([]);
  });

  it('names no field its kind lacks, at any depth', () => {
    expect(unknownFields).toEqual([]);
  });

  it('runs vesta rest as a user without privileges, on a read-only root with /tmp writable', () => {
    const set = statefulSet(file);
    const pod = set.spec?.template.spec;
    const container = vestaContainer(set);
    expect(container.args?.[0]).toBe('rest');
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, fsGroup: 10001 });
    expect(pod?.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    // Host marks are written under the temp dir: it must be a writable volume.
    const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
    expect(pod?.volumes?.find((volume) => volume.name === tmp?.name)?.emptyDir).toBeDefined();
  });

  it('keeps the state dir on a volume of its own per pod', () => {
    const set = statefulSet(file);
    const container = vestaContainer(set);
    const stateDir = envOf(container).get('VESTA_STATE_DIR')?.value;
    expect(stateDir).toBe('/var/lib/vesta');
    const mount = container.volumeMounts?.find((candidate) => candidate.mountPath === stateDir);
    const claims = (set.spec?.volumeClaimTemplates ?? []).map((claim) => claim.metadata?.name);
    expect(claims).toContain(mount?.name);
  });

  it('probes /health on the port the server listens on', () => {
    const container = vestaContainer(statefulSet(file));
    const env = envOf(container);
    expect(env.get('VESTA_HOST')?.value).toBe('0.0.0.0');
    const port = container.ports?.find((candidate) => candidate.name === 'http');
    expect(String(port?.containerPort)).toBe(env.get('VESTA_PORT')?.value);
    for (const probe of [
      container.startupProbe,
      container.readinessProbe,
      container.livenessProbe,
    ]) {
      expect(probe?.httpGet).toEqual({ path: '/health', port: 'http' });
    }
  });

  it('serves through a Service and is governed by a headless one, both selecting its pods', () => {
    const set = statefulSet(file);
    const labels = set.spec?.template.metadata?.labels ?? {};
    expect(set.spec?.selector.matchLabels).toEqual(labels);
    const all = services(file);
    const headless = all.find((service) => service.metadata?.name === set.spec?.serviceName);
    expect(headless?.spec?.clusterIP).toBe('None');
    expect(all.some((service) => service.spec?.clusterIP === undefined)).toBe(true);
    for (const service of all) {
      expect(service.spec?.selector).toEqual(labels);
      for (const port of service.spec?.ports ?? []) expect(port.targetPort).toBe('http');
    }
  });
});

describe('deploy/kubernetes/statefulset.yaml', () => {
  it("takes each pod's machine id from its name's ordinal, all within 924-1023", () => {
    const set = statefulSet('statefulset.yaml');
    const container = vestaContainer(set);
    const env = envOf(container);
    expect(container.args).toEqual(['rest', '--machine-id-from', 'statefulset']);
    expect(env.get('HOSTNAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    const offset = Number(env.get('VESTA_MACHINE_ID_OFFSET')?.value);
    expect(offset).toBeGreaterThanOrEqual(SERVER_IDS.min);
    expect(offset + (set.spec?.replicas ?? 1) - 1).toBeLessThanOrEqual(SERVER_IDS.max);
  });
});

describe('deploy/kubernetes/statefulset-coordinator.yaml', () => {
  it("leases its machine id from the Secret's coordinator under the pod's name, nothing else", () => {
    const file = 'statefulset-coordinator.yaml';
    const container = vestaContainer(statefulSet(file));
    const env = envOf(container);
    expect(container.args).toEqual(['rest']);
    const url = env.get('VESTA_COORDINATOR')?.valueFrom?.secretKeyRef;
    const secret = docs(file).find(
      (doc) => doc.kind === 'Secret' && doc.metadata.name === url?.name,
    );
    expect(
      (secret?.['stringData'] as Record<string, string> | undefined)?.[url?.key ?? ''],
    ).toMatch(/^(zookeeper|redis|rediss|postgres|postgresql|etcd):\/\//);
    expect(env.get('VESTA_COORDINATOR_KEY')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    // One machine-id source at a time: the CLI refuses two (INVALID_OPTIONS).
    for (const name of ['VESTA_MACHINE_ID', 'VESTA_MACHINE_ID_FROM', 'VESTA_MACHINE_IDS']) {
      expect(env.has(name), name).toBe(false);
    }
  });
});

describe('the manifest checks', () => {
  it('refuse a field of the wrong type and a misspelt field', async () => {
    const set = structuredClone(docs('statefulset.yaml').find((doc) => doc.kind === 'StatefulSet'));
    if (set === undefined) throw new Error('no StatefulSet');
    const container = (set as unknown as IStatefulSet).spec?.template.spec?.containers[0];
    if (container === undefined) throw new Error('no container');
    const wrongType = structuredClone(set);
    const wrongContainer = (wrongType as unknown as IStatefulSet).spec?.template.spec
      ?.containers[0] as unknown as Record<string, unknown>;
    wrongContainer['ports'] = [{ name: 'http', containerPort: '8080' }];
    expect(await schemaErrors(wrongType)).toMatch(/containerPort must be integer/);

    const misspelt = container as unknown as Record<string, unknown>;
    misspelt['livenessProb'] = misspelt['livenessProbe'];
    delete misspelt['livenessProbe'];
    expect(await schemaErrors(set)).toBeUndefined();
    const errors = await unknownFieldErrors([set]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/livenessProb\W+ does not exist in type 'IContainer'/);
  });
});
