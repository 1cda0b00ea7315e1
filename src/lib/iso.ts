import { z } from 'zod';

/** ISO 3166-1 alpha-2 country codes (officially assigned), upper case. */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

/**
 * ISO 4217 currency codes, upper case: the list Node 20's ICU data knows (`Intl.supportedValuesOf('currency')`),
 * written out so that what the API accepts, and the enum /openapi.json states, do not change with the runtime.
 */
export const CURRENCY_CODES: readonly string[] = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF ' +
  'CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL ' +
  'HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD ' +
  'MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR ' +
  'RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD ' +
  'TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XDR XOF XPF XSU YER ZAR ZMW ZWG ZWL'
).split(' ');

/**
 * One of `codes` in a request. The API has always taken the lower-case spelling too
 * (answering upper case), so the enum lists both spellings: the document states exactly what is
 * accepted, and a mixed-case spelling (`Usd`) is refused like any other value outside the enum.
 */
function codeInput(codes: readonly string[], id: string, message: string) {
  const spellings = [...codes, ...codes.map((code) => code.toLowerCase())] as [string, ...string[]];
  return z
    .enum(spellings, { error: message })
    .meta({ id, description: `${message}; answered upper case` })
    .transform((value) => value.toUpperCase());
}

export const countryCodeInput = codeInput(
  COUNTRY_CODES,
  'CountryCodeInput',
  'must be an ISO 3166-1 alpha-2 country code, upper or lower case',
);
export const currencyCodeInput = codeInput(
  CURRENCY_CODES,
  'CurrencyCodeInput',
  'must be an ISO 4217 currency code, upper or lower case',
);

/** The codes in answers: always upper case. */
export const countryCode = z
  .enum(COUNTRY_CODES as [string, ...string[]])
  .meta({ id: 'CountryCode', description: 'ISO 3166-1 alpha-2, upper case' });
export const currencyCode = z
  .enum(CURRENCY_CODES as [string, ...string[]])
  .meta({ id: 'CurrencyCode', description: 'ISO 4217, upper case' });
