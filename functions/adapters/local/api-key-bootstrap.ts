import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { hashApiKey } from '../../core/app/authenticate.js';
import type { Plan } from '../../core/domain/request.js';
import type { ApiKeyStore } from '../../core/ports/api-key-store.js';

/** Where the generated demo key is kept, under `DATA_DIR`. */
export const demoKeyFile = (dataDir: string): string => join(dataDir, 'demo-api-key');

/**
 * Where a running local server that uses the demo key records its address, under `DATA_DIR`
 * (`{"url": "http://127.0.0.1:8080", "port": 8080}`): the CLI reads it to use the demo key only
 * with the server it belongs to, whatever its port.
 */
export const demoServerFile = (dataDir: string): string => join(dataDir, 'demo-server.json');

/**
 * Registers the configured API keys (stored as SHA-256 hashes only, labelled `API_KEYS`). A key
 * registered before keeps its id, creation time and label, and stays revoked once revoked
 * (`npm run keys -- revoke`); its tenant and plan follow the configuration. With no `API_KEYS`,
 * the first start creates one demo key (tenant `demo`, plan `pro`, label `demo`), keeps it in
 * `DATA_DIR/demo-api-key` (mode 0600) and registers it; later starts reuse it, unless it was
 * revoked: then a new one replaces it in the file. Once `API_KEYS` is set, a demo key made by
 * an earlier start is revoked and its file removed: it does not stay a working `pro` key.
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
      const keyHash = hashApiKey(k.key);
      const known = await store.get(keyHash);
      if (known?.tenant === k.tenant && known.plan === k.plan) continue;
      await store.put({
        keyHash,
        createdAt: now.toISOString(),
        label: 'API_KEYS',
        ...known,
        tenant: k.tenant,
        plan: k.plan,
      });
    }
    await retireDemoKey(store, configured, dataDir, now);
    return { demoKey: undefined };
  }
  const file = demoKeyFile(dataDir);
  let demoKey: string | undefined;
  try {
    demoKey = (await readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const known = demoKey === undefined ? undefined : await store.get(hashApiKey(demoKey));
  if (demoKey === undefined || known?.revokedAt !== undefined) {
    demoKey = `dp_demo_${randomBytes(18).toString('base64url')}`;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${demoKey}\n`, { mode: 0o600 });
  }
  if (!known || known.revokedAt !== undefined) {
    await store.put({
      keyHash: hashApiKey(demoKey),
      tenant: 'demo',
      plan: 'pro',
      createdAt: now.toISOString(),
      label: 'demo',
    });
  }
  return { demoKey };
}

/**
 * Revokes the demo key kept in `DATA_DIR` (if any, and not one of the `configured` keys) and
 * removes its file.
 */
async function retireDemoKey(
  store: ApiKeyStore,
  configured: readonly { key: string }[],
  dataDir: string,
  now: Date,
): Promise<void> {
  const file = demoKeyFile(dataDir);
  let demoKey: string | undefined;
  try {
    demoKey = (await readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const known = demoKey === undefined ? undefined : await store.get(hashApiKey(demoKey));
  if (known?.label === 'demo' && !configured.some((k) => k.key === demoKey)) {
    await store.revoke(known.keyId, now);
  }
  await rm(file, { force: true });
}
