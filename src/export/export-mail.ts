/**
 * The mail sent to the `email` of an export request when its job ends: the download link and
 * when it expires, or the reason it failed. Sent by the runner in the background, after the job
 * row is final; a mail that cannot be sent is logged and changes nothing about the job.
 */
import type { AppContext } from '../app-context.ts';
import type { Logger } from '../log.ts';
import { downloadUrl } from './download-link.ts';

/** How a job ended, as the mail tells it. */
export type JobOutcome = { status: 'done'; expiresAt: Date } | { status: 'failed'; reason: string };

/** The mail's subject and text. */
export function exportMailText(appId: string, jobId: string, outcome: JobOutcome, link: string | undefined): { subject: string; text: string } {
  if (outcome.status === 'done') {
    return {
      subject: `Your data export of ${appId} is ready`,
      text: [
        `The data export ${jobId} of the app ${appId} has finished.`,
        '',
        `Download it (a .tar.gz archive of JSON Lines files, one per class) here:`,
        link ?? '',
        '',
        `The link works until ${outcome.expiresAt.toISOString()}; after that the archive is deleted.`,
        'Anyone with the link can download the archive: do not forward this mail.',
      ].join('\n'),
    };
  }
  return {
    subject: `Your data export of ${appId} failed`,
    text: [`The data export ${jobId} of the app ${appId} failed:`, '', outcome.reason, '', 'You can start a new export.'].join('\n'),
  };
}

/** Mails the outcome to `to` when a mailer is configured; never throws. */
export async function mailOutcome(app: AppContext, logger: Logger, jobId: string, to: string | null, outcome: JobOutcome): Promise<void> {
  if (!to || !app.mailer) return;
  const link = outcome.status === 'done' ? downloadUrl(app.mailer.linkBaseUrl, app.keys.serverSecret, jobId) : undefined;
  try {
    await app.mailer.send({ to, ...exportMailText(app.keys.appId, jobId, outcome, link) });
  } catch (err) {
    logger.error({ err, jobId }, 'sending the export mail failed');
  }
}
