/**
 * The injection token of the id service that `VestaModule` provides (a {@link VestaIdService}):
 * `@Inject(VESTA_ID_SERVICE)`, or its shorthand `@InjectVesta()`.
 */
export const VESTA_ID_SERVICE: unique symbol = Symbol.for('vesta.nestjs.IdService');

/** The resolved module options (internal: the async factory's result, before the service). */
export const VESTA_MODULE_OPTIONS: unique symbol = Symbol.for('vesta.nestjs.ModuleOptions');
