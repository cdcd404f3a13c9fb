import { downloadUrl } from './download-link.js';
/** The mail's subject and text. */
export function exportMailText(appId, jobId, outcome, link) {
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
export async function mailOutcome(app, logger, jobId, to, outcome) {
    if (!to || !app.mailer)
        return;
    const link = outcome.status === 'done' ? downloadUrl(app.mailer.linkBaseUrl, app.keys.serverSecret, jobId) : undefined;
    try {
        await app.mailer.send({ to, ...exportMailText(app.keys.appId, jobId, outcome, link) });
    }
    catch (err) {
        logger.error({ err, jobId }, 'sending the export mail failed');
    }
}
//# sourceMappingURL=export-mail.js.map