package main

import (
	"os"

	"github.com/ouncehq/ounce/internal/app"
)

// loadMailConfig reads the SMTP settings (OUNCE_SMTP_URL, OUNCE_MAIL_FROM,
// OUNCE_SMTP_ALLOW_PLAIN_LOOPBACK) and the limit on reset requests per client address
// (OUNCE_RESET_LIMIT_PER_IP); unset, mail is off.
func loadMailConfig(app *app.Config) error {
	app.Mail.SMTPURL, app.Mail.From = os.Getenv("OUNCE_SMTP_URL"), os.Getenv("OUNCE_MAIL_FROM")
	var err error
	if app.Mail.AllowPlainLoopback, err = envBool("OUNCE_SMTP_ALLOW_PLAIN_LOOPBACK"); err != nil {
		return err
	}
	if app.Mail.ResetsPerIP, err = envInt("OUNCE_RESET_LIMIT_PER_IP", 10); err != nil {
		return err
	}
	return app.Mail.Check()
}
