/**
 * The words of the verification and password-reset mails and of the pages behind their links,
 * kept in the app settings (`emailTexts`, changed with `larder settings set emailTexts {...}` or
 * PUT /1.1/larder/settings) so that an app can speak its users' language. Templates are plain
 * text with the placeholders {{appName}}, {{username}}, {{email}} and {{link}} (mails only);
 * pages HTML-escape the result, so a text or a username can never inject markup.
 */
import type { AppContext } from '../app-context.ts';
import { DEFAULT_EMAIL_TEXTS, type EmailTexts } from '../settings/email-texts.ts';


/** Values of the placeholders. */
export interface TextValues {
  readonly username?: string;
  readonly email?: string;
  readonly link?: string;
}

/** The app's texts, with defaults for any key the stored settings lack. */
export function textsOf(app: AppContext): EmailTexts & { appName: string } {
  // Settings stored before a text was added lack it: the default fills in.
  const texts: EmailTexts = { ...DEFAULT_EMAIL_TEXTS, ...app.settings.emailTexts };
  return { ...texts, appName: texts.appName || app.keys.appId };
}

/** Fills the placeholders of a template; unknown ones stay as written. */
export function fill(template: string, appName: string, values: TextValues): string {
  return template.replace(/\{\{\s*(appName|username|email|link)\s*\}\}/g, (_m, name: string) => {
    if (name === 'appName') return appName;
    return values[name as keyof TextValues] ?? '';
  });
}

/** A subject line: one line, whatever the template or a username holds (no header injection). */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').trim().slice(0, 250);
}
