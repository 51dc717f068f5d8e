import { TOKENS, VestaError, type Claim, type IdPopulator } from '@vesta/core';
import { ContainerModule } from 'inversify';

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
  const populator: IdPopulator = {
    kind: 'sync',
    canClaimSync: true,
    waiting: false,
    lastTime: 0,
    tryClaim: (_max: number, _out: Claim) => false,
    claimSync: () => {
      throw overloaded();
    },
    claim: () => Promise.reject(overloaded()),
    resumeAfter: () => undefined,
  };
  return new ContainerModule(({ rebindSync }) => {
    rebindSync<IdPopulator>(TOKENS.IdPopulator).toConstantValue(populator);
  });
}
