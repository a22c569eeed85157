/*
 * consumer.cpp - a C++ program built against an installed dmlref through its
 * CMake package (tests/cross/cmake_consumer/CMakeLists.txt): it reads a golden
 * vector with dmlref/vector.h (JSON through jansson, digests through
 * xxHash), verifies it with the reference on two threads (OpenMP), runs the
 * case through dmlref_execute() as a backend would and compares the outputs,
 * then shows that a flipped byte fails the comparison.
 *
 *   consumer_cxx VECTOR.json
 *
 * Prints "NAME: verified; executed and compared; a flipped byte: MISMATCH"
 * and exits 0, or says what went wrong and exits 1.
 */
#include <cstdio>
#include <vector>

#include <dmlref/vector.h>

namespace
{

// The vector, freed on every way out of main.
struct loaded_vector {
    dmlref_vector *vector = nullptr;
    ~loaded_vector()
    {
        dmlref_vector_free(vector);
    }
};

// Says which step failed and why; main's exit status.
int failed(const char *step, const dmlref_error &err)
{
    std::printf("%s: %s: %s\n", step, dmlref_status_name(err.status), err.message);
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: consumer_cxx VECTOR.json\n");
        return 2;
    }
    loaded_vector loaded;
    dmlref_error err;
    if (dmlref_vector_load(argv[1], nullptr, &loaded.vector, &err) != DMLREF_OK)
        return failed("load", err);
    dmlref_vector *v = loaded.vector;
    if (dmlref_vector_verify(v, 2, &err) != DMLREF_OK)
        return failed("verify", err);

    // Our own output buffers, as a backend under test would fill them.
    const dmlref_binding *vector_outputs = dmlref_vector_outputs(v);
    size_t output_count = dmlref_vector_output_count(v);
    std::vector<std::vector<unsigned char> > storage;
    std::vector<dmlref_binding> outputs;
    for (size_t i = 0; i < output_count; ++i)
        storage.emplace_back(vector_outputs[i].size_in_bytes);
    for (size_t i = 0; i < output_count; ++i)
        outputs.push_back({storage[i].data(), vector_outputs[i].size_in_bytes});
    if (dmlref_execute(dmlref_vector_operator(v), dmlref_vector_feature_level(v),
                       dmlref_vector_inputs(v), dmlref_vector_input_count(v), outputs.data(),
                       output_count, &err) != DMLREF_OK)
        return failed("execute", err);
    if (dmlref_vector_compare(v, outputs.data(), output_count, nullptr, &err) != DMLREF_OK)
        return failed("compare", err);

    storage[0][0] ^= 0x40;
    dmlref_status flipped = dmlref_vector_compare(v, outputs.data(), output_count, nullptr, &err);
    std::printf("%s: verified; executed and compared; a flipped byte: %s\n", dmlref_vector_name(v),
                dmlref_status_name(flipped));
    return flipped == DMLREF_ERROR_MISMATCH ? 0 : 1;
}
