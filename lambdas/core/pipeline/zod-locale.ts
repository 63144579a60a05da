/**
 * `zod/mini` ships without a locale (every built-in issue would read "Invalid input"), while
 * the contract's error texts are zod's English ones ("Invalid input: expected string, received
 * number"). Every module that builds schemas imports this file for its side effect; importing
 * only `en` keeps the other locales out of the bundle.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

z.config(en());
