-- Exchange rates refreshed from the ECB or imported by the operator (`ounce fx import`), laid
-- over the embedded ECB/Fed history: units of the currency per 1 EUR, as published (kept as
-- text so no digit, trailing zeros included, is changed). Running servers read them here, so
-- an import is seen without a restart.
CREATE TABLE fx_rates (
    currency   TEXT NOT NULL,
    day        DATE NOT NULL,
    per_eur    TEXT NOT NULL,
    source     TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (currency, day)
);

-- What a member reads money and weights in (issue 25): any supported currency code, and oz,
-- g, kg or tola.
ALTER TABLE users ADD COLUMN display_currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE users ADD COLUMN weight_unit TEXT NOT NULL DEFAULT 'oz' CHECK (weight_unit IN ('oz', 'g', 'kg', 'tola'));
