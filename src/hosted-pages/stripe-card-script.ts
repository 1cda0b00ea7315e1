import crypto from 'node:crypto';

/**
 * The one script the hosted pages run, and only for an account connected to Stripe (docs/decisions.md §29):
 * it mounts Stripe's card element in `#card-element` and, on submit, has Stripe.js make the payment method,
 * so the card number goes from the browser to Stripe alone; the form then posts the method's id
 * (`payment_method`) like any field, and the server attaches it (src/hosted-pages/card-entry.ts). Plain
 * script, no framework, only the calls of Stripe.js the browser tests' stand-in also has
 * (test/support/stripe-js-stand-in.ts).
 */
export const STRIPE_CARD_SCRIPT = `(function () {
  var form = document.querySelector('form[data-stripe-key]');
  if (!form) return;
  var errors = document.getElementById('card-errors');
  if (typeof window.Stripe !== 'function') {
    errors.textContent = 'The card field could not be loaded. Reload the page to try again.';
    return;
  }
  var stripe = window.Stripe(form.getAttribute('data-stripe-key'));
  var card = stripe.elements().create('card', { hidePostalCode: true });
  card.mount('#card-element');
  card.on('change', function (event) {
    errors.textContent = event.error ? event.error.message : '';
  });
  var button = form.querySelector('button[type="submit"]');
  var sending = false;
  form.addEventListener('submit', function (event) {
    if (form.elements.payment_method.value) return;
    event.preventDefault();
    if (sending) return;
    sending = true;
    button.disabled = true;
    errors.textContent = '';
    var name = form.elements.name ? form.elements.name.value : '';
    stripe
      .createPaymentMethod({ type: 'card', card: card, billing_details: name ? { name: name } : {} })
      .then(function (result) {
        if (result.error) throw result.error;
        form.elements.payment_method.value = result.paymentMethod.id;
        form.submit();
      })
      .catch(function (error) {
        errors.textContent = (error && error.message) || 'Your card could not be read. Check it and try again.';
        sending = false;
        button.disabled = false;
      });
  });
})();
`;

export const STRIPE_CARD_SCRIPT_PATH = `/hosted/assets/stripe-card-${crypto
  .createHash('sha256')
  .update(STRIPE_CARD_SCRIPT)
  .digest('hex')
  .slice(0, 12)}.js`;
