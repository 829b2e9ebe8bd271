import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { hashApiKey } from '../../core/app/authenticate.js';
import type { Plan } from '../../core/domain/request.js';
import type { ApiKeyStore } from '../../core/ports/api-key-store.js';

/** Where the generated demo key is kept, under `DATA_DIR`. */
export const demoKeyFile = (dataDir: string): string => join(dataDir, 'demo-api-key');

/**
 * Registers the configured API keys (stored as SHA-256 hashes only). With no `API_KEYS`, the
 * first start creates one demo key (tenant `demo`, plan `pro`), keeps it in `DATA_DIR/demo-api-key`
 * (mode 0600) and registers it; later starts reuse it.
 * @returns the demo key when one is in use, so the caller can print it.
 */
export async function bootstrapApiKeys(
  store: ApiKeyStore,
  configured: readonly { key: string; tenant: string; plan: Plan }[] | undefined,
  dataDir: string,
  now: Date,
): Promise<{ demoKey: string | undefined }> {
  if (configured && configured.length > 0) {
    for (const k of configured) {
      await store.put({
        keyHash: hashApiKey(k.key),
        tenant: k.tenant,
        plan: k.plan,
        createdAt: now.toISOString(),
      });
    }
    return { demoKey: undefined };
  }
  const file = demoKeyFile(dataDir);
  let demoKey: string;
  try {
    demoKey = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    demoKey = `dp_demo_${randomBytes(18).toString('base64url')}`;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${demoKey}\n`, { mode: 0o600 });
  }
  const keyHash = hashApiKey(demoKey);
  if (!(await store.get(keyHash))) {
    await store.put({ keyHash, tenant: 'demo', plan: 'pro', createdAt: now.toISOString() });
  }
  return { demoKey };
}
