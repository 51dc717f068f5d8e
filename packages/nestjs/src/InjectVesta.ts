import { Inject } from '@nestjs/common';
import { VESTA_ID_SERVICE } from './tokens.js';

/**
 * Injects the id service of `VestaModule`: `@Inject(VESTA_ID_SERVICE)`, shorter.
 *
 * @example
 * constructor(@InjectVesta() private readonly ids: VestaIdService) {}
 */
export function InjectVesta(): PropertyDecorator & ParameterDecorator {
  return Inject(VESTA_ID_SERVICE);
}
