/**
 * The inversify tokens of the core: each names one part of an id service. Core's
 * `idServiceModule` binds them from the options; a mode's module rebinds `GenMethod` and
 * `MachineIdRange`, a coordinator's module binds `MachineIdProvider`, and the `modules` option
 * can rebind any (`rebindSync(TOKENS.X)`); what is finally bound is validated once, as a whole,
 * before the machine id is acquired. The README's "Extension points" section has an example
 * for each.
 */
export const TOKENS = {
  /** The resolved, frozen options (`ResolvedIdServiceOptions`). */
  Options: Symbol.for('vesta.Options'),
  /** Where wall time, monotonic time and timers come from (`TimeSource`). */
  TimeSource: Symbol.for('vesta.TimeSource'),
  /** Where warnings go (`Logger`). */
  Logger: Symbol.for('vesta.Logger'),
  /** Metric hooks (`IdServiceObserver`). */
  Observer: Symbol.for('vesta.Observer'),
  /** The layout of the ids issued (`IdMeta`). */
  IdMeta: Symbol.for('vesta.IdMeta'),
  /**
   * The genMethod the service issues under (0 embedded, 1 central server, 2 REST): bound by the
   * mode's module. A layout without a genMethod field records 0 whatever is bound.
   */
  GenMethod: Symbol.for('vesta.GenMethod'),
  /**
   * The machine ids the mode may use (`MachineIdRange`), bound by the mode's module, usually
   * from the bound `IdMeta`; the machine id acquired must lie in it (MACHINE_ID_OUT_OF_RANGE).
   */
  MachineIdRange: Symbol.for('vesta.MachineIdRange'),
  /** Decoding, making and dating ids of the layout and epoch (`IdConverter`). */
  IdConverter: Symbol.for('vesta.IdConverter'),
  /** The time field of the layout on the time source (`Timer`). */
  Timer: Symbol.for('vesta.Timer'),
  /** How sequence numbers are claimed (`IdPopulator`: sync, lock, atomic). */
  IdPopulator: Symbol.for('vesta.IdPopulator'),
  /** The state the atomic populator shares with worker threads (`SharedIdState`). */
  SharedIdState: Symbol.for('vesta.SharedIdState'),
  /**
   * Where the machine id comes from (`MachineIdProvider`): bound from the `machineId` or
   * `machineIdProvider` option, or by a coordinator's module (`bind`, when neither option is
   * given). Exactly one must be bound.
   */
  MachineIdProvider: Symbol.for('vesta.MachineIdProvider'),
  /** The machine id acquired from the provider (`MachineIdLease`). */
  MachineIdLease: Symbol.for('vesta.MachineIdLease'),
  /** Everything that shapes this instance's ids (`IdIdentity`). */
  IdIdentity: Symbol.for('vesta.IdIdentity'),
  /** Where the time high-water mark is kept (`TimeMarkStore`). */
  TimeMarkStore: Symbol.for('vesta.TimeMarkStore'),
  /** The durable time high-water mark (`HighWaterMark`). */
  HighWaterMark: Symbol.for('vesta.HighWaterMark'),
  /** The id service (`IdService`). */
  IdService: Symbol.for('vesta.IdService'),
} as const;
