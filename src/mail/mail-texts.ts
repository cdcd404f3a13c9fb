/**
 * The words of the verification and password-reset mails and of the pages behind their links,
 * kept in the app settings (`emailTexts`, changed with `larder settings set emailTexts {...}` or
 * PUT /1.1/larder/settings) so that an app can speak its users' language. Templates are plain
 * text with the placeholders {{appName}}, {{username}}, {{email}} and {{link}} (mails only);
 * pages HTML-escape the result, so a text or a username can never inject markup.
 */
import type { AppContext } from '../app-context.ts';

/** Every configurable text. */
export interface EmailTexts {
  /** {{appName}}; the app id when empty. */
  appName: string;
  /** `lang` attribute of the pages (a BCP 47 tag such as en, zh-CN). */
  pageLang: string;
  verifyEmailSubject: string;
  verifyEmailBody: string;
  resetPasswordSubject: string;
  resetPasswordBody: string;
  emailVerifiedTitle: string;
  emailVerifiedText: string;
  invalidLinkTitle: string;
  invalidLinkText: string;
  resetPasswordTitle: string;
  resetPasswordText: string;
  newPasswordLabel: string;
  repeatPasswordLabel: string;
  resetPasswordButton: string;
  passwordsDifferText: string;
  passwordInvalidText: string;
  passwordResetTitle: string;
  passwordResetText: string;
}

/** The texts of a new app. */
export const DEFAULT_EMAIL_TEXTS: EmailTexts = {
  appName: '',
  pageLang: 'en',
  verifyEmailSubject: 'Verify your email address for {{appName}}',
  verifyEmailBody:
    'Hello {{username}},\n\nplease confirm that {{email}} is your email address for {{appName}} by opening this link:\n\n{{link}}\n\n' +
    'The link is valid for one week. If you did not sign up for {{appName}}, ignore this mail.\n',
  resetPasswordSubject: 'Reset your password for {{appName}}',
  resetPasswordBody:
    'Hello {{username}},\n\nsomeone asked to reset the password of your {{appName}} account. To choose a new password, open this link:\n\n{{link}}\n\n' +
    'The link is valid for one hour and works once. If you did not ask for this, ignore this mail: your password stays as it is.\n',
  emailVerifiedTitle: 'Email address verified',
  emailVerifiedText: 'Thank you. {{email}} is now verified for {{appName}}.',
  invalidLinkTitle: 'This link does not work',
  invalidLinkText: 'The link is wrong, has expired or has already been used. Ask {{appName}} for a new one.',
  resetPasswordTitle: 'Choose a new password',
  resetPasswordText: 'Choose a new password for {{username}} on {{appName}}.',
  newPasswordLabel: 'New password',
  repeatPasswordLabel: 'Repeat the new password',
  resetPasswordButton: 'Change password',
  passwordsDifferText: 'The two passwords differ. Please type them again.',
  passwordInvalidText: 'The password must not be empty or blank.',
  passwordResetTitle: 'Password changed',
  passwordResetText: 'Your password for {{appName}} has been changed. Log in with the new one.',
};

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
