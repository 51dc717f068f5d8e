import { VestaError } from '@vesta/core';
import type { ContainerModule } from 'inversify';
import { stubPopulatorModule } from './stubPopulatorModule.js';

/**
 * Test fixture: an id service module whose populator answers every claim as core does when
 * demand exceeds capacity, with OVERLOADED and a `retryAfterMs` hint. Only id issuing is
 * refused; decode, make, info and ping still work.
 */
export function overloadedModule(retryAfterMs: number): ContainerModule {
  const overloaded = (): VestaError =>
    new VestaError('OVERLOADED', 'too many requests wait for ids', {
      details: { retryAfterMs },
    });
  return stubPopulatorModule(() => Promise.reject(overloaded()), overloaded);
}
