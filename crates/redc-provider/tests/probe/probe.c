/* A small libcrypto client for crates/redc-provider/tests/api_contract.rs:
 * drives the EVP API the way applications do (the parts the `openssl`
 * command-line tools never reach) and prints one "name=value" line per
 * outcome, so that the test can compare the redc provider's answers with
 * OpenSSL's default provider's.
 *
 * usage: probe KEY.pem default
 *        probe KEY.pem redc PROVIDER_DIR
 */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static OSSL_LIB_CTX *lib;
static const char *propq;

/* The key of KEY.pem held by the provider under test (by fromdata). */
static EVP_PKEY *load_key(const char *path)
{
    FILE *f = fopen(path, "r");
    EVP_PKEY *file_key, *key = NULL;
    OSSL_PARAM *numbers = NULL;
    EVP_PKEY_CTX *ctx;

    if (f == NULL)
        return NULL;
    file_key = PEM_read_PrivateKey_ex(f, NULL, NULL, NULL, lib, NULL);
    fclose(f);
    if (file_key == NULL || EVP_PKEY_todata(file_key, EVP_PKEY_KEYPAIR, &numbers) <= 0)
        return NULL;
    ctx = EVP_PKEY_CTX_new_from_name(lib, "RSA", propq);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0
        || EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, numbers) <= 0)
        key = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(numbers);
    EVP_PKEY_free(file_key);
    return key;
}

static EVP_PKEY_CTX *ctx_for(EVP_PKEY *key)
{
    return EVP_PKEY_CTX_new_from_pkey(lib, key, propq);
}

/* Decrypt with an output buffer of `outsize` bytes (the plaintext's own
 * length, below the modulus size): 1 on success. */
static int decrypt_into(EVP_PKEY *key, int pad, const unsigned char *ct, size_t ctlen, size_t outsize)
{
    unsigned char out[1024];
    size_t outlen = outsize;
    EVP_PKEY_CTX *ctx = ctx_for(key);
    int r = ctx != NULL && EVP_PKEY_decrypt_init(ctx) > 0
        && EVP_PKEY_CTX_set_rsa_padding(ctx, pad) > 0
        && EVP_PKEY_decrypt(ctx, out, &outlen, ct, ctlen) > 0;

    EVP_PKEY_CTX_free(ctx);
    return r;
}

static void decrypt_small_buffer(EVP_PKEY *key)
{
    static const unsigned char msg[32] = "thirty-two bytes of a secret key";
    int pads[2] = { RSA_PKCS1_PADDING, RSA_PKCS1_OAEP_PADDING };
    const char *names[2] = { "pkcs1", "oaep" };

    for (int i = 0; i < 2; i++) {
        unsigned char ct[1024];
        size_t ctlen = sizeof(ct);
        EVP_PKEY_CTX *ctx = ctx_for(key);
        int ok = ctx != NULL && EVP_PKEY_encrypt_init(ctx) > 0
            && EVP_PKEY_CTX_set_rsa_padding(ctx, pads[i]) > 0
            && EVP_PKEY_encrypt(ctx, ct, &ctlen, msg, sizeof(msg)) > 0;

        EVP_PKEY_CTX_free(ctx);
        if (!ok) {
            printf("decrypt-%s-encrypt=fail\n", names[i]);
            continue;
        }
        printf("decrypt-%s-full-buffer=%d\n", names[i], decrypt_into(key, pads[i], ct, ctlen, ctlen));
        printf("decrypt-%s-exact-buffer=%d\n", names[i],
               decrypt_into(key, pads[i], ct, ctlen, sizeof(msg)));
    }
}

static void oaep_label(EVP_PKEY *key)
{
    EVP_PKEY_CTX *ctx = ctx_for(key);
    unsigned char *label = OPENSSL_memdup("redc label", 10);
    unsigned char *back = NULL;
    int n = -9;

    if (ctx != NULL && label != NULL && EVP_PKEY_encrypt_init(ctx) > 0
        && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) > 0
        && EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, label, 10) > 0)
        n = EVP_PKEY_CTX_get0_rsa_oaep_label(ctx, &back);
    printf("oaep-label-len=%d\n", n);
    printf("oaep-label=%s\n", n == 10 && back != NULL && memcmp(back, "redc label", 10) == 0 ? "same" : "other");
    EVP_PKEY_CTX_free(ctx);
}

/* EVP_PKEY_copy_parameters: RSA has no domain parameters, so the copy
 * must not carry the key (it duplicates with a parameters-only selection). */
static void copy_parameters(EVP_PKEY *key)
{
    EVP_PKEY *to = EVP_PKEY_new();
    BIGNUM *bn = NULL;
    int r = EVP_PKEY_copy_parameters(to, key) > 0;
    int has_n = 0, has_d = 0;

    /* (OpenSSL 3.0 crashes querying a target whose copy failed.) */
    if (r) {
        has_n = EVP_PKEY_get_bn_param(to, OSSL_PKEY_PARAM_RSA_N, &bn) > 0;
        BN_free(bn);
        bn = NULL;
        has_d = EVP_PKEY_get_bn_param(to, OSSL_PKEY_PARAM_RSA_D, &bn) > 0;
        BN_clear_free(bn);
    }
    printf("copy-parameters-has-n=%d\n", has_n);
    printf("copy-parameters-has-d=%d\n", has_d);
    EVP_PKEY_free(to);
}

/* EVP_DigestSign with each spelling of a digest name applications pass:
 * the PKCS#1 v1.5 signature in hex (deterministic), or "fail". */
static void digest_names(EVP_PKEY *key)
{
    static const char *names[] = { "SHA256", "SHA2-256", "sha256", "SHA-256",
                                   "2.16.840.1.101.3.4.2.1", "SHA1", "1.3.14.3.2.26", "SHA2-512",
                                   "2.16.840.1.101.3.4.2.3", "sha384" };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        unsigned char sig[1024];
        size_t siglen = sizeof(sig);
        int ok = md != NULL && EVP_DigestSignInit_ex(md, NULL, names[i], lib, propq, key, NULL) > 0
            && EVP_DigestSign(md, sig, &siglen, (const unsigned char *)"abc", 3) > 0;

        printf("digest-sign-%s=", names[i]);
        for (size_t j = 0; ok && j < siglen; j++)
            printf("%02x", sig[j]);
        printf("%s\n", ok ? "" : "fail");
        EVP_MD_CTX_free(md);
    }
}

/* The context parameters applications read back from a PSS signing
 * context, after setting them the way libssl does (integers). */
static void pss_ctx_params(EVP_PKEY *key)
{
    EVP_PKEY_CTX *ctx = ctx_for(key);
    const EVP_MD *md = NULL;
    int pad = -9, salt = -9;
    char mgf1[64] = "fail";

    if (ctx != NULL && EVP_PKEY_sign_init(ctx) > 0
        && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) > 0
        && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha384()) > 0
        && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, RSA_PSS_SALTLEN_DIGEST) > 0) {
        EVP_PKEY_CTX_get_rsa_padding(ctx, &pad);
        EVP_PKEY_CTX_get_rsa_pss_saltlen(ctx, &salt);
        EVP_PKEY_CTX_get_signature_md(ctx, &md);
        EVP_PKEY_CTX_get_rsa_mgf1_md_name(ctx, mgf1, sizeof(mgf1));
    }
    printf("pss-pad=%d\npss-saltlen=%d\n", pad, salt);
    printf("pss-md=%s\n", md == NULL ? "none" : EVP_MD_get0_name(md));
    printf("pss-mgf1=%s\n", mgf1);
    EVP_PKEY_CTX_free(ctx);
}

/* A PSS signature (SHA-256, 20 bytes of salt) made by the default
 * provider, verified under the provider tested with each integer salt
 * length form (EVP_PKEY_CTX_set_rsa_pss_saltlen): 1 verified, 0 not. */
static void pss_verify_salt_forms(EVP_PKEY *key)
{
    unsigned char digest[32], sig[1024];
    size_t siglen = sizeof(sig);
    unsigned int dlen = 0;
    static const int salts[] = { 20, RSA_PSS_SALTLEN_DIGEST, RSA_PSS_SALTLEN_AUTO, RSA_PSS_SALTLEN_MAX, 32, 0 };
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(lib, key, "provider=default");
    int ok = ctx != NULL && EVP_Digest("abc", 3, digest, &dlen, EVP_sha256(), NULL) > 0
        && EVP_PKEY_sign_init(ctx) > 0
        && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) > 0
        && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) > 0
        && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, 20) > 0
        && EVP_PKEY_sign(ctx, sig, &siglen, digest, dlen) > 0;

    EVP_PKEY_CTX_free(ctx);
    for (size_t i = 0; i < sizeof(salts) / sizeof(salts[0]); i++) {
        int r = -9;

        ctx = ctx_for(key);
        if (ok && ctx != NULL && EVP_PKEY_verify_init(ctx) > 0
            && EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) > 0
            && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) > 0
            && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, salts[i]) > 0)
            r = EVP_PKEY_verify(ctx, sig, siglen, digest, dlen) == 1;
        printf("pss-verify-salt%d=%d\n", salts[i], r);
        EVP_PKEY_CTX_free(ctx);
    }
}

/* One key object, many threads at once (a TLS server's key): each thread
 * signs with the provider tested (PSS and PKCS#1 v1.5 alternately, fresh
 * contexts, as libssl does per handshake) and checks every signature with
 * the default provider. */
#define THREADS 4
#define SIGNS_PER_THREAD 12

static void *sign_many(void *arg)
{
    EVP_PKEY *key = arg;
    long bad = 0;

    for (int i = 0; i < SIGNS_PER_THREAD; i++) {
        unsigned char msg[8] = { 'm', (unsigned char)i }, sig[1024];
        size_t siglen = sizeof(sig);
        int pad = i % 2 ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING;
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        EVP_PKEY_CTX *pctx = NULL;
        int ok = md != NULL && EVP_DigestSignInit_ex(md, &pctx, "SHA256", lib, propq, key, NULL) > 0
            && EVP_PKEY_CTX_set_rsa_padding(pctx, pad) > 0
            && EVP_DigestSign(md, sig, &siglen, msg, sizeof(msg)) > 0;

        EVP_MD_CTX_free(md);
        md = EVP_MD_CTX_new();
        pctx = NULL;
        ok = ok && md != NULL
            && EVP_DigestVerifyInit_ex(md, &pctx, "SHA256", lib, "provider=default", key, NULL) > 0
            && EVP_PKEY_CTX_set_rsa_padding(pctx, pad) > 0
            && EVP_DigestVerify(md, sig, siglen, msg, sizeof(msg)) == 1;
        EVP_MD_CTX_free(md);
        bad += !ok;
    }
    return (void *)bad;
}

static void threads(EVP_PKEY *key)
{
    pthread_t t[THREADS];
    long bad = 0;
    int started = 0;

    for (int i = 0; i < THREADS; i++)
        started += pthread_create(&t[i], NULL, sign_many, key) == 0;
    for (int i = 0; i < started; i++) {
        void *r;

        pthread_join(t[i], &r);
        bad += (long)r;
    }
    printf("threads-started=%d\nthreads-bad-signatures=%ld\n", started, bad);
}

static void key_params(EVP_PKEY *key)
{
    char name[64] = "fail";
    int r = EVP_PKEY_get_default_digest_name(key, name, sizeof(name));

    printf("key-bits=%d\nkey-size=%d\n", EVP_PKEY_get_bits(key), EVP_PKEY_get_size(key));
    printf("key-security-bits=%d\n", EVP_PKEY_get_security_bits(key));
    printf("key-default-digest=%d:%s\n", r, name);
    printf("key-eq-self=%d\n", EVP_PKEY_eq(key, key));
}

int main(int argc, char **argv)
{
    EVP_PKEY *key;

    if (argc < 3)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    lib = OSSL_LIB_CTX_new();
    if (strcmp(argv[2], "redc") == 0) {
        if (argc < 4 || !OSSL_PROVIDER_set_default_search_path(lib, argv[3])
            || OSSL_PROVIDER_load(lib, "redc") == NULL)
            return 3;
        propq = "?provider=redc";
    }
    if (OSSL_PROVIDER_load(lib, "default") == NULL)
        return 3;
    key = load_key(argv[1]);
    if (key == NULL) {
        ERR_print_errors_fp(stderr);
        return 4;
    }
    printf("key-provider=%s\n", OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(key)));
    decrypt_small_buffer(key);
    oaep_label(key);
    copy_parameters(key);
    digest_names(key);
    pss_ctx_params(key);
    pss_verify_salt_forms(key);
    key_params(key);
    threads(key);
    EVP_PKEY_free(key);
    OSSL_LIB_CTX_free(lib);
    return 0;
}
