/** The inversify tokens of an id service's parts (see the README's "Extension points"). */
export const TOKENS = {
  /** `ResolvedIdServiceOptions` */
  Options: Symbol.for('vesta.Options'),
  TimeSource: Symbol.for('vesta.TimeSource'),
  Logger: Symbol.for('vesta.Logger'),
  /** `IdServiceObserver` */
  Observer: Symbol.for('vesta.Observer'),
  IdMeta: Symbol.for('vesta.IdMeta'),
  /** The genMethod the service issues under (a layout without the field records 0). */
  GenMethod: Symbol.for('vesta.GenMethod'),
  /** The machine ids the mode may use (`MachineIdRange`). */
  MachineIdRange: Symbol.for('vesta.MachineIdRange'),
  IdConverter: Symbol.for('vesta.IdConverter'),
  Timer: Symbol.for('vesta.Timer'),
  IdPopulator: Symbol.for('vesta.IdPopulator'),
  SharedIdState: Symbol.for('vesta.SharedIdState'),
  /** Exactly one `MachineIdProvider`: from the options, or a coordinator's module. */
  MachineIdProvider: Symbol.for('vesta.MachineIdProvider'),
  MachineIdLease: Symbol.for('vesta.MachineIdLease'),
  IdIdentity: Symbol.for('vesta.IdIdentity'),
  TimeMarkStore: Symbol.for('vesta.TimeMarkStore'),
  HighWaterMark: Symbol.for('vesta.HighWaterMark'),
  IdService: Symbol.for('vesta.IdService'),
} as const;
