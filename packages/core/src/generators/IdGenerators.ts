import { z } from 'zod';
import { invalidOptions, VestaError } from '../errors/VestaError.js';
import { layoutSpecOf } from '../codec/IdConverter.js';
import { fixedBitsDiffer, identityOf, type IdIdentity } from '../identity/IdIdentity.js';
import { createIdMeta } from '../layout/IdMeta.js';
import { defineOptions } from '../options/defineOptions.js';
import { checkedLater, typedAs, wholeNumber } from '../options/optionTypes.js';
import type { IdService } from '../service/IdService.js';
import type { IdServiceOptions } from '../service/IdServiceOptions.js';

export const DEFAULT_GENERATOR = 'default';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Checks a generator name, safe in a URL path, a metric label and a log line (INVALID_ARGUMENT). */
export function checkGeneratorName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : String(name);
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a generator name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; got ${shown}`,
      { details: { field: 'name' } },
    );
  }
  return name;
}

/** A name's own id shape: empty shares the instance's generator; else its own service. */
const namedGeneratorShape = z.strictObject({
  /** This name's machine id (required with any other field). */
  machineId: checkedLater<number>().optional(),
  /** This name's type. @default the instance's */
  type: checkedLater<NonNullable<IdServiceOptions['type']>>().optional(),
  /** This name's layout. @default the instance's */
  layout: checkedLater<NonNullable<IdServiceOptions['layout']>>().optional(),
  /** This name's epoch. @default the instance's */
  epoch: checkedLater<NonNullable<IdServiceOptions['epoch']>>().optional(),
});

export type NamedGeneratorOptions = Readonly<z.input<typeof namedGeneratorShape>>;

export const idGeneratorsOptions = defineOptions('generators', {
  /** The names known at start: a list, or a map to each name's own shape. @default [] */
  names: typedAs<readonly string[] | Readonly<Record<string, NamedGeneratorOptions>>>(
    z.union([z.array(z.string()), z.record(z.string(), namedGeneratorShape)]),
    'must be a list of names or a map of names to their options',
  ).default([]),
  /** Create an unknown name on first use (sharing the instance's generator) instead of UNKNOWN_GENERATOR. @default false */
  onDemand: z.boolean({ error: 'must be true or false' }).default(false),
  /** The most names an instance holds, `default` and those created on demand included. @default 1000 */
  maxNames: wholeNumber(1, 1_000_000).default(1000),
});

/** The named generators of an instance, as callers give them: see {@link idGeneratorsOptions}. */
export type IdGeneratorsOptions = Readonly<z.input<typeof idGeneratorsOptions.schema>>;

/** Validates the generators' options: names well formed, own shapes with their own machine id. */
export function resolveIdGeneratorsOptions(options: IdGeneratorsOptions) {
  const o = idGeneratorsOptions.resolve(options);
  const entries: [string, NamedGeneratorOptions][] = Array.isArray(o.names)
    ? o.names.map((name) => [name, {}])
    : Object.entries(o.names);
  const names: Record<string, NamedGeneratorOptions> = {};
  for (const [name, own] of entries) {
    try {
      checkGeneratorName(name);
    } catch (cause) {
      throw invalidOptions(`generators.names: ${(cause as Error).message}`, cause);
    }
    if (name === 'default' || Object.hasOwn(names, name)) {
      throw invalidOptions(`generators.names: ${name} is given twice (default always exists)`);
    }
    const defined = Object.fromEntries(
      Object.entries(own).filter(([, value]) => value !== undefined),
    ) as NamedGeneratorOptions;
    if (Object.keys(defined).length > 0 && defined.machineId === undefined) {
      throw invalidOptions(
        `generators.names.${name}: a name with its own layout, type or epoch needs its own machineId`,
      );
    }
    names[name] = Object.freeze(defined);
  }
  if (entries.length + 1 > o.maxNames) {
    throw invalidOptions(`generators: ${entries.length + 1} names exceed maxNames ${o.maxNames}`);
  }
  return Object.freeze({ ...o, names: Object.freeze(names) });
}

/** One named generator as `list()` shows it; `shared` when it issues from the instance's own. */
export interface IdGeneratorInfo {
  readonly name: string;
  readonly shared: boolean;
  readonly machine: number;
  readonly type: number;
  /** Ids issued under this name since start. */
  readonly issued: number;
}

/** Counts ids per name; the servers' metrics implement it. */
export interface IdGeneratorsObserver {
  onIssued?(name: string, count: number): void;
}

/** Builds the service of a name with its own layout (the mode fixes genMethod and range). */
export type CreateOwnIdService = (options: NamedGeneratorOptions) => Promise<IdService>;

function identityOfService(service: IdService): IdIdentity {
  const info = service.info();
  return identityOf(createIdMeta(layoutSpecOf(info)), info.epochMs, info);
}

/** A name's view of its service, counting the ids issued. */
class NamedIdService implements IdService {
  issued = 0;

  constructor(
    readonly name: string,
    readonly service: IdService,
    readonly shared: boolean,
    private readonly observer: IdGeneratorsObserver,
  ) {}

  genId: IdService['genId'] = async () => this.#count(await this.service.genId());
  genIds: IdService['genIds'] = async (count) => this.#count(await this.service.genIds(count));
  genUuid: IdService['genUuid'] = async () => this.#count(await this.service.genUuid());
  genUuids: IdService['genUuids'] = async (count) =>
    this.#count(await this.service.genUuids(count));
  expId: IdService['expId'] = (id, form) => this.service.expId(id, form);
  formatId: IdService['formatId'] = (id, form) => this.service.formatId(id, form);
  parseId: IdService['parseId'] = (text, form) => this.service.parseId(text, form);
  makeId: IdService['makeId'] = (fields) => this.service.makeId(fields);
  transTime: IdService['transTime'] = (time, type) => this.service.transTime(time, type);
  timeBounds: IdService['timeBounds'] = (fromMs, toMs, only) =>
    this.service.timeBounds(fromMs, toMs, only);
  info: IdService['info'] = () => this.service.info();
  health: IdService['health'] = () => this.service.health();

  /** The registry closes the services, once for all names. */
  close: IdService['close'] = () => Promise.resolve();

  #count<T>(issued: T): T {
    const count = Array.isArray(issued) ? issued.length : 1;
    this.issued += count;
    this.observer.onIssued?.(this.name, count);
    return issued;
  }
}

/**
 * Named generators (Leaf's keys) over one instance: `get('orders')` is a name's id service. A
 * name with its own layout, type or epoch gets its own service, which must differ from every
 * other in some fixed bit (else INVALID_OPTIONS). Unknown names are UNKNOWN_GENERATOR, or
 * created with `onDemand`, up to `maxNames`.
 */
export class IdGenerators {
  readonly #names = new Map<string, NamedIdService>();
  readonly #own: IdService[] = [];

  private constructor(
    private readonly base: IdService,
    private readonly onDemand: boolean,
    private readonly maxNames: number,
    private readonly observer: IdGeneratorsObserver,
  ) {
    this.#names.set(DEFAULT_GENERATOR, new NamedIdService(DEFAULT_GENERATOR, base, true, observer));
  }

  /** `createOwn` builds the service of a name with its own layout; a failure closes those built. */
  static async create(
    base: IdService,
    options: IdGeneratorsOptions = {},
    createOwn?: CreateOwnIdService,
    observer: IdGeneratorsObserver = {},
  ): Promise<IdGenerators> {
    const o = resolveIdGeneratorsOptions(options);
    const generators = new IdGenerators(base, o.onDemand, o.maxNames, observer);
    try {
      for (const [name, own] of Object.entries(o.names)) {
        if (Object.keys(own).length === 0) {
          generators.#add(name, base, true);
          continue;
        }
        if (createOwn === undefined) {
          throw invalidOptions(
            `generator ${name} has its own layout, which this mode does not support`,
          );
        }
        const service = await createOwn(own);
        generators.#own.push(service);
        generators.#add(name, service, false);
      }
      generators.#checkDisjoint();
    } catch (error) {
      await generators.close();
      throw error;
    }
    return generators;
  }

  /** The generators of an instance with only its own, `default`. */
  static only(base: IdService, observer: IdGeneratorsObserver = {}): IdGenerators {
    return new IdGenerators(base, false, 1, observer);
  }

  get default(): IdService {
    return this.base;
  }

  /** The id service of `name`: INVALID_ARGUMENT for a malformed name, else UNKNOWN_GENERATOR. */
  get(name: string): IdService {
    const known = this.#names.get(name);
    if (known !== undefined) return known;
    checkGeneratorName(name);
    if (!this.onDemand) {
      throw new VestaError('UNKNOWN_GENERATOR', `no generator is named ${name}`, {
        details: { name },
      });
    }
    if (this.#names.size >= this.maxNames) {
      throw new VestaError(
        'UNKNOWN_GENERATOR',
        `no generator is named ${name}, and no more can be created (maxNames ${this.maxNames})`,
        { details: { name } },
      );
    }
    return this.#add(name, this.base, true);
  }

  /** As {@link get}, but undefined for an unknown or malformed name (names as hints: Leaf's keys). */
  find(name: string): IdService | undefined {
    const known = this.#names.get(name);
    if (known !== undefined || !this.onDemand) return known;
    try {
      return this.get(name);
    } catch {
      return undefined;
    }
  }

  list(): IdGeneratorInfo[] {
    return [...this.#names.values()].map((n) => {
      const { machine, type } = n.service.info();
      return { name: n.name, shared: n.shared, machine, type, issued: n.issued };
    });
  }

  /** Closes the services of names with their own layout (not `default`'s). */
  async close(): Promise<void> {
    const own = this.#own.splice(0);
    await Promise.all(own.map((s) => s.close()));
  }

  #add(name: string, service: IdService, shared: boolean): NamedIdService {
    checkGeneratorName(name);
    const named = new NamedIdService(name, service, shared, this.observer);
    this.#names.set(name, named);
    return named;
  }

  #checkDisjoint(): void {
    const services = [...this.#names.values()].filter(
      (n) => !n.shared || n.name === DEFAULT_GENERATOR,
    );
    for (const [i, a] of services.entries()) {
      for (const b of services.slice(i + 1)) {
        if (!fixedBitsDiffer(identityOfService(a.service), identityOfService(b.service))) {
          throw invalidOptions(
            `generators ${a.name} and ${b.name} could issue the same id: give the one with its own layout another machine id (or type) so that some fixed bit differs`,
          );
        }
      }
    }
  }
}
