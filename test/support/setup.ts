import '../../functions/polyfills.js';
