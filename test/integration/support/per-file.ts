/**
 * A harness opened once per test file: opened before the first test and handed to `use`,
 * closed after the last one (nothing to close when opening failed: its error is the one shown).
 */
import { afterAll, beforeAll } from 'vitest';

export function openPerFile<T extends { close(): Promise<void> }>(
  open: () => Promise<T>,
  use: (opened: T) => void,
): void {
  let opened: T | undefined;
  beforeAll(async () => {
    opened = await open();
    use(opened);
  });
  afterAll(async () => {
    await opened?.close();
  });
}
