/** The texts of a new app. */
export const DEFAULT_EMAIL_TEXTS = {
    appName: '',
    pageLang: 'en',
    verifyEmailSubject: 'Verify your email address for {{appName}}',
    verifyEmailBody: 'Hello {{username}},\n\nplease confirm that {{email}} is your email address for {{appName}} by opening this link:\n\n{{link}}\n\n' +
        'The link is valid for one week. If you did not sign up for {{appName}}, ignore this mail.\n',
    resetPasswordSubject: 'Reset your password for {{appName}}',
    resetPasswordBody: 'Hello {{username}},\n\nsomeone asked to reset the password of your {{appName}} account. To choose a new password, open this link:\n\n{{link}}\n\n' +
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
/** The app's texts, with defaults for any key the stored settings lack. */
export function textsOf(app) {
    // Settings stored before a text was added lack it: the default fills in.
    const texts = { ...DEFAULT_EMAIL_TEXTS, ...app.settings.emailTexts };
    return { ...texts, appName: texts.appName || app.keys.appId };
}
/** Fills the placeholders of a template; unknown ones stay as written. */
export function fill(template, appName, values) {
    return template.replace(/\{\{\s*(appName|username|email|link)\s*\}\}/g, (_m, name) => {
        if (name === 'appName')
            return appName;
        return values[name] ?? '';
    });
}
/** A subject line: one line, whatever the template or a username holds (no header injection). */
export function oneLine(text) {
    return text.replace(/[\r\n\t]+/g, ' ').trim().slice(0, 250);
}
//# sourceMappingURL=mail-texts.js.map