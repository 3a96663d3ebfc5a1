// The secure port's TLS material, with OpenSSL: its serving certificate (read from
// --tls-cert-file and --tls-private-key-file, or self-signed as upstream makes one), the client CA
// bundle, and the user a client certificate names.
//
//   X509Ptr cert;
//   KeyPtr key;
//   absl::Status s = SelfSigned(&cert, &key);
//   std::string pem = Pem([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); });
//
// Thread safety: the functions may be called from any thread.
#pragma once

#include <gnutls/gnutls.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "src/server/server.h"

namespace ksched::server {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using X509StorePtr = std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)>;

// A self-signed serving certificate for localhost and 127.0.0.1, valid for a year, as upstream's
// MaybeDefaultWithSelfSignedCerts makes when no --tls-cert-file is given (kept in memory).
// `usage`: its extended key usage, serverAuth, or clientAuth for a client's (in tests).
absl::Status SelfSigned(X509Ptr* cert, KeyPtr* key, const char* usage = "serverAuth");

// The serving certificate and key from their PEM files; the error names the flag and the file.
// `cert_pem` gets the certificate file's whole text, which may hold the chain after the leaf.
absl::Status ReadPem(const std::string& cert_file, const std::string& key_file, X509Ptr* cert,
                     KeyPtr* key, std::string* cert_pem);

// The client CA bundle, for verifying client certificates (TLS client authentication).
// `source` names the bundle in the error.
absl::StatusOr<X509StorePtr> ClientCaStore(const std::string& pem, const std::string& source);

// Who the client certificate chain (DER, leaf first, as the TLS handshake sent it) names: nullopt
// without one; Unauthenticated when it does not chain to the client CA.
absl::StatusOr<std::optional<UserInfo>> CertificateUser(X509_STORE* client_ca,
                                                        const gnutls_datum_t* chain,
                                                        unsigned int length);

// The PEM text that `write` writes (a certificate or a key).
std::string Pem(const std::function<int(BIO*)>& write);

}  // namespace ksched::server
