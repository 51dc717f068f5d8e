import { PrimaryColumn, type PrimaryColumnOptions } from 'typeorm';
import { bigintTransformer } from './bigintTransformer.js';

/**
 * A primary `bigint` column read as a JavaScript `bigint` ({@link bigintTransformer}), which
 * {@link VestaIdSubscriber} fills with a Vesta id on insert when the entity leaves it undefined.
 *
 * @example
 * @Entity('orders')
 * class Order {
 *   @VestaIdColumn() id!: bigint;
 *   @Column('text') customer!: string;
 * }
 */
export function VestaIdColumn(options: Omit<PrimaryColumnOptions, 'type' | 'transformer'> = {}) {
  return PrimaryColumn({ ...options, type: 'bigint', transformer: bigintTransformer });
}
