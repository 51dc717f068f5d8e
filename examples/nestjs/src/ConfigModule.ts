import { Global, Module } from '@nestjs/common';
import { AppConfig } from './AppConfig.js';

/** Provides {@link AppConfig} to every module. */
@Global()
@Module({ providers: [AppConfig], exports: [AppConfig] })
export class ConfigModule {}
