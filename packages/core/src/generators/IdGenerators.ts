import { VestaError } from '../errors/VestaError.js';
import { fixedBitsDiffer, type IdIdentity } from '../identity/IdIdentity.js';
import type { IdService, IdServiceInfo } from '../service/IdService.js';
import { checkGeneratorName, DEFAULT_GENERATOR } from './checkGeneratorName.js';
import {
  type IdGeneratorsOptions,
  type NamedGeneratorOptions,
  resolveIdGeneratorsOptions,
} from './IdGeneratorsOptions.js';

/** One named generator as `list()` shows it. */
export interface IdGeneratorInfo {
  readonly name: string;
  /** Whether the name issues from the instance's own generator (shared with every such name). */
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

function identityOf(info: IdServiceInfo): IdIdentity {
  return {
    layout: info.layout,
    epochMs: info.epochMs,
    unitMs: info.unitMs,
    machine: info.machine,
    genMethod: info.genMethod,
    type: info.type,
    version: info.version,
  };
}

function ownsLayout(options: NamedGeneratorOptions): boolean {
  return Object.keys(options).length > 0;
}

/** A name's view of its service: every call goes to the service, issued ids are counted. */
class NamedIdService implements IdService {
  issued = 0;

  constructor(
    readonly name: string,
    readonly service: IdService,
    readonly shared: boolean,
    private readonly observer: IdGeneratorsObserver,
  ) {}

  async genId(): Promise<bigint> {
    const id = await this.service.genId();
    this.#count(1);
    return id;
  }

  async genIds(count: number): Promise<bigint[]> {
    const ids = await this.service.genIds(count);
    this.#count(ids.length);
    return ids;
  }

  async genUuid(): Promise<string> {
    const uuid = await this.service.genUuid();
    this.#count(1);
    return uuid;
  }

  async genUuids(count: number): Promise<string[]> {
    const uuids = await this.service.genUuids(count);
    this.#count(uuids.length);
    return uuids;
  }

  expId: IdService['expId'] = (id, form) => this.service.expId(id, form);
  formatId: IdService['formatId'] = (id, form) => this.service.formatId(id, form);
  parseId: IdService['parseId'] = (text, form) => this.service.parseId(text, form);
  makeId: IdService['makeId'] = (fields) => this.service.makeId(fields);
  transTime: IdService['transTime'] = (time, type) => this.service.transTime(time, type);
  timeBounds: IdService['timeBounds'] = (fromMs, toMs, only) =>
    this.service.timeBounds(fromMs, toMs, only);
  info: IdService['info'] = () => this.service.info();
  health: IdService['health'] = () => this.service.health();

  /** A name does not close its service: the registry does, once for all names. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  #count(count: number): void {
    this.issued += count;
    this.observer.onIssued?.(this.name, count);
  }
}

/**
 * Named generators (Leaf's keys, Nacos' resources) over one instance: `get('orders')` is the
 * id service of a name. Every name issues from the instance's own generator (one machine id,
 * one sequence), so ids are unique across all names, unless the name has its own layout, type
 * or epoch: then it has its own service on its own machine id, and at start every pair of
 * services must be provably disjoint (some fixed bit differs: machine id, genMethod, type or
 * version), else INVALID_OPTIONS. Unknown names are UNKNOWN_GENERATOR, or created on demand
 * (sharing the instance's generator) when `onDemand` is set, up to `maxNames`.
 */
export class IdGenerators {
  readonly #base: IdService;
  readonly #names = new Map<string, NamedIdService>();
  readonly #own: IdService[] = [];
  readonly #onDemand: boolean;
  readonly #maxNames: number;
  readonly #observer: IdGeneratorsObserver;

  private constructor(
    base: IdService,
    onDemand: boolean,
    maxNames: number,
    observer: IdGeneratorsObserver,
  ) {
    this.#base = base;
    this.#onDemand = onDemand;
    this.#maxNames = maxNames;
    this.#observer = observer;
    this.#names.set(DEFAULT_GENERATOR, new NamedIdService(DEFAULT_GENERATOR, base, true, observer));
  }

  /**
   * The generators of an instance whose own service is `base`. `createOwn` builds the service
   * of a name with its own layout (only such names call it). On any failure the services built
   * so far are closed (not `base`).
   */
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
        if (!ownsLayout(own)) {
          generators.#add(name, base, true);
          continue;
        }
        if (createOwn === undefined) {
          throw new VestaError(
            'INVALID_OPTIONS',
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

  /** The generators of an instance with only its own, `default` (what a mode has when none are configured). */
  static only(base: IdService, observer: IdGeneratorsObserver = {}): IdGenerators {
    return new IdGenerators(base, false, 1, observer);
  }

  /** The instance's own service: the generator of the name `default` and of every shared name. */
  get default(): IdService {
    return this.#base;
  }

  /**
   * The id service of `name`: INVALID_ARGUMENT for a malformed name, UNKNOWN_GENERATOR for a
   * name not configured (unless created on demand).
   */
  get(name: string): IdService {
    const known = this.#names.get(name);
    if (known !== undefined) return known;
    checkGeneratorName(name);
    if (!this.#onDemand) {
      throw new VestaError('UNKNOWN_GENERATOR', `no generator is named ${name}`, {
        details: { name },
      });
    }
    if (this.#names.size >= this.#maxNames) {
      throw new VestaError(
        'UNKNOWN_GENERATOR',
        `no generator is named ${name}, and no more can be created (maxNames ${this.#maxNames})`,
        { details: { name } },
      );
    }
    return this.#add(name, this.#base, true);
  }

  /**
   * The service of `name` when it is configured (or created on demand); undefined for an
   * unknown or malformed name (for callers whose names are hints, such as Leaf's keys).
   */
  find(name: string): IdService | undefined {
    const known = this.#names.get(name);
    if (known !== undefined || !this.#onDemand) return known;
    try {
      return this.get(name);
    } catch {
      return undefined;
    }
  }

  /** Every name, with its machine id, type and the ids issued under it. */
  list(): IdGeneratorInfo[] {
    return [...this.#names.values()].map((n) => {
      const info = n.service.info();
      return {
        name: n.name,
        shared: n.shared,
        machine: info.machine,
        type: info.type,
        issued: n.issued,
      };
    });
  }

  /** Closes the services of names with their own layout (the instance's own is its owner's). */
  async close(): Promise<void> {
    const own = this.#own.splice(0);
    await Promise.all(own.map((s) => s.close()));
  }

  #add(name: string, service: IdService, shared: boolean): NamedIdService {
    checkGeneratorName(name);
    const named = new NamedIdService(name, service, shared, this.#observer);
    this.#names.set(name, named);
    return named;
  }

  #checkDisjoint(): void {
    const services = [this.#base, ...this.#own];
    const nameOf = (s: IdService): string =>
      [...this.#names.values()].find((n) => n.service === s)?.name ?? DEFAULT_GENERATOR;
    for (let i = 0; i < services.length; i++) {
      for (let j = i + 1; j < services.length; j++) {
        const a = services[i] as IdService;
        const b = services[j] as IdService;
        if (!fixedBitsDiffer(identityOf(a.info()), identityOf(b.info()))) {
          throw new VestaError(
            'INVALID_OPTIONS',
            `generators ${nameOf(a)} and ${nameOf(b)} could issue the same id: give the one with its own layout another machine id (or type) so that some fixed bit differs`,
          );
        }
      }
    }
  }
}
