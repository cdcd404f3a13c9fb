/**
 * The words of the verification and password-reset mails and of their pages: the app setting
 * `emailTexts` (settings/app-settings.ts). The mail flows fill them in (mail/mail-texts.ts).
 */

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
