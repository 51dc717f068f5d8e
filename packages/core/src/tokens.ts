/** The inversify tokens of the core. Rebind any of them to swap a part (layout, clock, machine ids...). */
export const TOKENS = {
  Options: Symbol.for('vesta.Options'),
  Clock: Symbol.for('vesta.Clock'),
  Logger: Symbol.for('vesta.Logger'),
  Observer: Symbol.for('vesta.Observer'),
  IdMeta: Symbol.for('vesta.IdMeta'),
  IdLayouts: Symbol.for('vesta.IdLayouts'),
  Timer: Symbol.for('vesta.Timer'),
  IdConverter: Symbol.for('vesta.IdConverter'),
  IdPopulator: Symbol.for('vesta.IdPopulator'),
  SharedIdState: Symbol.for('vesta.SharedIdState'),
  MachineIdProvider: Symbol.for('vesta.MachineIdProvider'),
  MachineIdLease: Symbol.for('vesta.MachineIdLease'),
  IdIdentity: Symbol.for('vesta.IdIdentity'),
  TimeMarkStore: Symbol.for('vesta.TimeMarkStore'),
  HighWaterMark: Symbol.for('vesta.HighWaterMark'),
  IdService: Symbol.for('vesta.IdService'),
} as const;
