/*
 * What an application's property query decides when redc refuses a key
 * that OpenSSL's default provider accepts (crates/redc-provider/README.md,
 * "When redc refuses a key"). Usage:
 *
 *     fallback KEY.pem PROVIDER_DIR PROPQUERY
 *
 * loads redc (from PROVIDER_DIR) and the default provider, decodes KEY.pem
 * with the default properties (the default provider's decoders), then
 * signs 32 bytes with PKCS#1 v1.5 and SHA-256 on an EVP_PKEY_CTX made
 * with PROPQUERY, and prints "sign=ok" or "sign=refused".
 */
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    unsigned char tbs[32] = { 7 }, sig[1024];
    size_t siglen = sizeof(sig);
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    FILE *f;
    int ok;

    if (argc != 4) {
        fprintf(stderr, "usage: fallback KEY.pem PROVIDER_DIR PROPQUERY\n");
        return 2;
    }
    if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[2])
        || OSSL_PROVIDER_load(NULL, "redc") == NULL
        || OSSL_PROVIDER_load(NULL, "default") == NULL) {
        ERR_print_errors_fp(stderr);
        return 2;
    }
    if ((f = fopen(argv[1], "r")) == NULL)
        return 2;
    pkey = PEM_read_PrivateKey_ex(f, NULL, NULL, NULL, NULL, NULL);
    fclose(f);
    if (pkey == NULL) {
        ERR_print_errors_fp(stderr);
        return 2;
    }
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, argv[3]);
    ok = ctx != NULL
        && EVP_PKEY_sign_init(ctx) > 0
        && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) > 0
        && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) > 0
        && EVP_PKEY_sign(ctx, sig, &siglen, tbs, sizeof(tbs)) > 0;
    printf("sign=%s\n", ok ? "ok" : "refused");
    if (!ok)
        ERR_print_errors_fp(stderr);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    return 0;
}
