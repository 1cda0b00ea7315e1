import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StripeStandIn } from './stripe-tools';

/**
 * Stripe.js for browser tests, where js.stripe.com cannot be reached: served on a loopback port and named by
 * STRIPE_JS_URL (`<url>/v3/`), it has the calls the hosted pages' card script makes (src/hosted-pages/
 * stripe-card-script.ts): `Stripe(pk)`, `elements()`, `create('card')`, `mount`, `on('change')` and
 * `createPaymentMethod`. Its card element is three labelled inputs in the page (Stripe's is an iframe of its
 * own); createPaymentMethod posts the card from the browser to this server's `/v1/payment_methods`, which makes
 * it at localstripe and answers Stripe's object, so the `pm_...` the page posts is one the service's attach reads
 * back from localstripe, and the card number never passes through the service.
 */
export interface StripeJsStandIn {
  /** What STRIPE_JS_URL is set to. */
  url: string;
  origin: string;
  /** The payment methods the browser made through it, in order. */
  madeMethods: string[];
  close(): Promise<void>;
}

/** The script served as Stripe.js: plain ES5 in the page's realm, no inline style (the pages' CSP has none). */
const STRIPE_JS = `(function () {
  var base = document.currentScript.src.replace(/\\/v3\\/?$/, '');
  // No name: like Stripe's own fields (in Stripe's frame), they are never part of the page's form post.
  function field(container, label, autocomplete) {
    var input = document.createElement('input');
    input.setAttribute('aria-label', label);
    input.setAttribute('autocomplete', autocomplete);
    input.setAttribute('inputmode', 'numeric');
    input.placeholder = label;
    container.appendChild(input);
    return input;
  }
  function CardElement() {
    this.handlers = {};
  }
  CardElement.prototype.mount = function (selector) {
    var container = typeof selector === 'string' ? document.querySelector(selector) : selector;
    this.number = field(container, 'Card number', 'cc-number');
    this.expiry = field(container, 'Expiration date MM / YY', 'cc-exp');
    this.cvc = field(container, 'Security code', 'cc-csc');
    var element = this;
    [this.number, this.expiry, this.cvc].forEach(function (input) {
      input.addEventListener('input', function () {
        (element.handlers.change || []).forEach(function (handler) {
          handler({ complete: false, error: undefined });
        });
      });
    });
  };
  CardElement.prototype.on = function (event, handler) {
    (this.handlers[event] = this.handlers[event] || []).push(handler);
  };
  function Stripe(key) {
    if (!(this instanceof Stripe)) return new Stripe(key);
    if (!/^pk_(test|live)_/.test(key || '')) throw new Error('Stripe stand-in: a publishable key is required');
    this.key = key;
  }
  Stripe.prototype.elements = function () {
    return {
      create: function (type) {
        if (type !== 'card') throw new Error('Stripe stand-in: only the card element');
        return new CardElement();
      },
    };
  };
  Stripe.prototype.createPaymentMethod = function (options) {
    var card = options.card;
    var expiry = card.expiry.value.split('/');
    var number = card.number.value.replace(/\\s+/g, '');
    if (!/^\\d{12,19}$/.test(number))
      return Promise.resolve({ error: { type: 'validation_error', message: 'Your card number is incomplete.' } });
    if (expiry.length !== 2)
      return Promise.resolve({ error: { type: 'validation_error', message: "Your card's expiration date is incomplete." } });
    var body = new URLSearchParams({
      type: 'card',
      'card[number]': number,
      'card[exp_month]': expiry[0].trim(),
      'card[exp_year]': String(2000 + Number(expiry[1].trim()) % 100),
      'card[cvc]': card.cvc.value.trim(),
    });
    var name = options.billing_details && options.billing_details.name;
    if (name) body.set('billing_details[name]', name);
    return fetch(base + '/v1/payment_methods', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + this.key, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    })
      .then(function (response) {
        return response.json();
      })
      .then(function (answer) {
        return answer.error ? { error: answer.error } : { paymentMethod: answer };
      });
  };
  window.Stripe = Stripe;
})();
`;

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-allow-methods': 'POST',
};

/**
 * The stand-in on a free loopback port, making payment methods at `localstripe`. localstripe takes only a
 * secret key on `/v1/payment_methods` (Stripe takes the publishable key there) and keeps one store for every
 * key: the server sends `secretKey` in the browser's publishable key's place.
 */
export async function startStripeJsStandIn(localstripe: StripeStandIn, secretKey: string): Promise<StripeJsStandIn> {
  const madeMethods: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v3/') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(STRIPE_JS);
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      return res.end();
    }
    if (
      req.method !== 'POST' ||
      req.url !== '/v1/payment_methods' ||
      !/^Bearer pk_/.test(req.headers.authorization ?? '')
    ) {
      res.writeHead(404, CORS);
      return res.end();
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      fetch(`${localstripe.apiBase}/v1/payment_methods`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: Buffer.concat(chunks),
      })
        .then(async (answer) => {
          const text = await answer.text();
          const made = answer.ok ? (JSON.parse(text) as { id?: string }) : {};
          if (made.id) madeMethods.push(made.id);
          res.writeHead(answer.status, { ...CORS, 'content-type': 'application/json' });
          res.end(text);
        })
        .catch((error: unknown) => {
          res.writeHead(502, { ...CORS, 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v3/`,
    origin,
    madeMethods,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
