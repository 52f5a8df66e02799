/**
 * Files a command will write its report to once its work is done (`ci --reporter junit:x.xml`),
 * checked before that work starts: a path that cannot be written — its directory missing, a
 * directory, no permission, a read-only file system — is said at once, not after the whole corpus
 * has run. Each file is opened for writing as the report will be; a file this check made is removed
 * again, and one that was there is left as it was. A full disk still shows only when the report is written.
 * One that is there is opened without waiting: a named pipe nothing reads (or a socket) is refused
 * at once, where opening it as usual would wait forever; a device (`/dev/stdout`, a pipe read) is fine.
 */
import { constants } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { InvalidOptionError } from '../core/errors.js';
import { writeFailure } from '../core/fs-failure.js';

export async function checkReportFile(file: string): Promise<void> {
  try {
    const made = await open(file, 'wx').catch((error: unknown) => {
      if ((error as { code?: string }).code === 'EEXIST') return undefined;
      throw error;
    });
    if (made !== undefined) {
      await made.close();
      await rm(file, { force: true });
      return;
    }
    // It exists: opened to append to, which leaves it as it was.
    await (await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK)).close();
  } catch (error) {
    if ((error as { code?: string }).code === 'ENXIO') {
      throw new InvalidOptionError(`cannot write ${file}: nothing reads it (a named pipe without a reader, or a socket)`, { cause: error });
    }
    throw writeFailure(file, error);
  }
}
