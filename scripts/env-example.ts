/** `npm run env:example`: writes `.env.example` from the config schema (a test fails when they differ). */
import { writeFileSync } from 'node:fs';
import { renderEnvExample } from '../server/config/env-example.js';

writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample());
